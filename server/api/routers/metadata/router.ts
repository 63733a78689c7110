import { z } from 'zod';
import { createDraft } from '../../../metadata/create-draft';
import type { DraftUpload } from '../../../metadata/multipart';
import { createTRPCRouter, publicProcedure } from '../../trpc';

const uploadInput = z.object({
  body: z.custom<DraftUpload>(
    (value) => typeof value === 'object' && value !== null && 'fields' in value,
    'a parsed multipart upload',
  ),
});

export const metadataRouter = createTRPCRouter({
  /** Reached through POST /api/v1/token-metadata, which parses the multipart stream into `body`. */
  createDraft: publicProcedure
    .input(uploadInput)
    .mutation(async ({ ctx, input }) =>
      createDraft({ db: ctx.db, objects: await ctx.objects(), fetchImage: ctx.fetchImage }, input.body),
    ),
});
