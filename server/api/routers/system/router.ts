import { readIndexedThroughBlock } from '../../../db/checkpoint';
import { createTRPCRouter, publicProcedure } from '../../trpc';

export const systemRouter = createTRPCRouter({
  /** Where the index stands (0 before the first block); the UI shows it beside live data. */
  status: publicProcedure.query(async ({ ctx }) => ({
    indexedThroughBlock: await readIndexedThroughBlock(ctx.db),
  })),
});
