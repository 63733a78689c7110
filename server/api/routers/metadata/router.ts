import { z } from 'zod';
import { finalizeBody } from '../../../../shared/metadata/api';
import { AppError } from '../../../errors';
import { createDraft } from '../../../metadata/create-draft';
import { finalizeDraft } from '../../../metadata/finalize';
import { draftUploadSchema } from '../../../metadata/multipart';
import { createTRPCRouter, inProcessProcedure } from '../../trpc';

/** The parsed multipart upload, checked for shape here so a wrong one is a 400, not a crash. */
const uploadInput = z.object({ body: draftUploadSchema });

export const finalizeInput = z.object({
  draft: z.string().regex(/^d_[A-Za-z0-9_-]{16}$/, { message: 'draft must be a draft id (d_…)' }),
  body: finalizeBody,
});

export const metadataRouter = createTRPCRouter({
  /** Reached through POST /api/v1/token-metadata/{draft}/finalize (JSON) and from the launch UI. */
  finalize: inProcessProcedure.input(finalizeInput).mutation(({ ctx, input }) => {
    const chain = ctx.chain();
    if (!chain) throw new AppError('unavailable', 'no chain is configured, so launches cannot be verified');
    return finalizeDraft({ db: ctx.db, ...chain }, input.draft, input.body);
  }),
  /** Reached through POST /api/v1/token-metadata, which parses the multipart stream into `body`. */
  createDraft: inProcessProcedure.input(uploadInput).mutation(async ({ ctx, input }) => {
    const { budgetBytes, ttlMs, purgeIntervalMs } = ctx.config.drafts;
    // The budget is the front's client's: in-process callers without one (next dev) have none.
    const budget =
      ctx.client !== undefined && budgetBytes > 0
        ? { client: ctx.client, bytes: budgetBytes, ttlMs, purgeIntervalMs }
        : undefined;
    return createDraft(
      { db: ctx.db, objects: await ctx.objects(), fetchImage: ctx.fetchImage, budget, clock: ctx.clock },
      input.body,
    );
  }),
});
