import { z } from 'zod';
import { AppError } from '../../../errors';
import { createDraft } from '../../../metadata/create-draft';
import { finalizeBody, finalizeDraft } from '../../../metadata/finalize';
import type { DraftUpload } from '../../../metadata/multipart';
import { createTRPCRouter, publicProcedure } from '../../trpc';

const uploadInput = z.object({
  body: z.custom<DraftUpload>(
    (value) => typeof value === 'object' && value !== null && 'fields' in value,
    'a parsed multipart upload',
  ),
});

export const finalizeInput = z.object({
  draft: z.string().regex(/^d_[A-Za-z0-9_-]{16}$/, { message: 'draft must be a draft id (d_…)' }),
  body: finalizeBody,
});

export const metadataRouter = createTRPCRouter({
  /** Reached through POST /api/v1/token-metadata/{draft}/finalize (JSON) and from the launch UI. */
  finalize: publicProcedure.input(finalizeInput).mutation(({ ctx, input }) => {
    const chain = ctx.chain();
    if (!chain) throw new AppError('unavailable', 'no chain is configured, so launches cannot be verified');
    return finalizeDraft({ db: ctx.db, ...chain }, input.draft, input.body);
  }),
  /** Reached through POST /api/v1/token-metadata, which parses the multipart stream into `body`. */
  createDraft: publicProcedure
    .input(uploadInput)
    .mutation(async ({ ctx, input }) =>
      createDraft({ db: ctx.db, objects: await ctx.objects(), fetchImage: ctx.fetchImage }, input.body),
    ),
});
