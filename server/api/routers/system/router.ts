import { sql } from 'drizzle-orm';
import { selectRows } from '../../../db/client';
import { createTRPCRouter, publicProcedure } from '../../trpc';
import { indexedThroughBlockColumn } from '../tokens/rows';

export const systemRouter = createTRPCRouter({
  /** Where the index stands; the UI shows it beside live data. */
  status: publicProcedure.query(async ({ ctx }) => {
    const [row] = await selectRows<{ indexed_through_block: string | number | null }>(
      ctx.db,
      sql`select ${indexedThroughBlockColumn} as indexed_through_block`,
    );
    const value = row?.indexed_through_block;
    return { indexedThroughBlock: value === null || value === undefined ? null : Number(value) };
  }),
});
