import { type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { AddressPageInput, BalancesPageInput } from '../../../shared/api/common';
import { balanceHistoryFromSql, indexedThroughBlockSql } from '../../db/checkpoint';
import { compiledRead, compiledReads } from '../../db/compiled-read';
import { AppError } from '../../errors';
import { type CursorValue, decodeCursorIfAny, encodeCursor } from '../cursor';
import { jsonPageSql, pageJson } from '../rest/json-sql';
import { type SerializedAnswer, serializedAnswer } from '../rest/serialized';
import type { Context } from '../trpc';

/**
 * Reads whose answer PostgreSQL writes as JSON from their schemas (json-sql.ts): a cheap read's
 * own CPU was mostly the rows (postgres.js parsing each column, the structured answer with its
 * bigints, then serializing it again; docs/benchmarks.md); these arrive as text.
 */

/**
 * One row of `table` by address as its answer, with the checkpoint it was read at: `json` over
 * row `r` of `columns`; `missing` is the error for an address without a row.
 */
export function rowByAddress(
  table: 'tokens' | 'creators',
  columns: string,
  json: SQL,
  missing: (address: string) => AppError,
): (ctx: Context, input: { address: string }) => Promise<SerializedAnswer> {
  const body = compiledRead<{ ib: string | number; body: string }, 'address'>(
    (param) =>
      sql`select r.ib, ${json} as body
          from (select ${sql.raw(columns)}, ${indexedThroughBlockSql} as ib
                  from ${sql.raw(table)} where address = ${param('address')} offset 0) r`,
  );
  return async (ctx, { address }) => {
    const [row] = await body(ctx.db, { address });
    if (!row) throw missing(address);
    return serializedAnswer(row.body, Number(row.ib));
  };
}

export const tokenNotFound = (address: string) =>
  new AppError('not_found', `no launched token at ${address}`);

export type PageParam = 'address' | 'k0' | 'k1' | 'block';

/**
 * A page at `block` reads balances the index holds: the block must be indexed, and not before the
 * index began keeping balance history (`balance_history_from_block`, migration 0020).
 * @throws AppError `invalid_parameter` naming the indexed block (or where history starts).
 */
export function checkBalancesBlock(block: number | undefined, indexed: number, historyFrom: number): void {
  if (block === undefined) return;
  if (block > indexed)
    throw new AppError('invalid_parameter', `block ${block} is beyond the indexed block ${indexed}`, [
      { field: 'block', message: `must be at most ${indexed} (indexed_through_block)` },
    ]);
  if (block < historyFrom)
    throw new AppError(
      'invalid_parameter',
      `balance history starts at block ${historyFrom}: this index was built before it kept one`,
      [{ field: 'block', message: `must be at least ${historyFrom}` }],
    );
}

/** The list a cursor belongs to: a page at a block walks that block's list only. */
export const balancesList = (list: string, block: number | undefined) =>
  block === undefined ? list : `${list}@${block}`;

/** Where a page of a token's rows starts and how its cursor is keyed. */
export interface TokenPages<Key extends readonly [CursorValue, CursorValue], Order extends string> {
  /** One item's JSON over numbered row `x` (json-sql.ts). */
  item: SQL;
  /**
   * At most `rows` of the token's (`param('address')`) rows in page order, numbered `n` from 1,
   * after the key (`param('k0')`, `param('k1')`) when `after`, in the page's `order`; as they
   * stood at `param('block')` for a page at a block.
   */
  numbered(
    param: (name: PageParam) => Placeholder | SQL,
    after: boolean,
    rows: number,
    order: Order,
    atBlock: boolean,
  ): SQL;
  /** The key's two columns of numbered row `x` in `order`. */
  keys(order: Order): readonly [string, string];
  keySchema: z.ZodType<Key>;
  /** The cursor's key from the last item's key columns as the driver returns them. */
  cursorKey?: (last: [string | number, string | number]) => Key;
}

/**
 * Keyset pages of one token's rows (its trades, holders, traders) as JSON, each in one statement
 * with the checkpoint and whether the token exists: a page of an address that is no launched
 * token is a 404. Statements are compiled per (order, first or after, rows, now or at a block).
 */
export function tokenPages<Key extends readonly [CursorValue, CursorValue], Order extends string = ''>(
  pages: TokenPages<Key, Order>,
) {
  const bodies = compiledReads<
    {
      ib: string | number;
      hf?: string | number;
      token: string | null;
      items: string | null;
      n: string | number;
      last_k0: string | number | null;
      last_k1: string | number | null;
    },
    PageParam,
    string
  >((param, variant) => {
    const [order, position, rows, when] = variant.split('|') as [Order, string, string, string];
    const fetched = Number(rows);
    // The token's rows are those of the token row `tk` the statement looked up, not of the
    // parameter: with the parameter, PostgreSQL planned the page anew on every execution for a
    // token with many rows (a custom plan per value, ~1.5 ms each), where this plans it once.
    const at = (name: PageParam) => (name === 'address' ? sql.raw('tk.address') : param(name));
    const numbered = pages.numbered(at, position === 'after', fetched, order, when === 'at');
    const [k0, k1] = pages.keys(order);
    const historyFrom = when === 'at' ? sql`${balanceHistoryFromSql} as hf, ` : sql``;
    return sql`select ${indexedThroughBlockSql} as ib, ${historyFrom}tk.address as token, p.items, p.n, p.last_k0, p.last_k1
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral ${jsonPageSql(pages.item, numbered, fetched - 1, { k0, k1 })} p on true`;
  });
  /**
   * The page of `list` that `input` asks for, as `"items":[…],"next_cursor":…`, and its block;
   * with `input.block`, the page at that block (a list of its own: checkBalancesBlock, balancesList).
   */
  return async (
    ctx: Context,
    input: AddressPageInput & Partial<Pick<BalancesPageInput, 'block'>>,
    list: string,
    order: Order,
  ): Promise<{ page: string; block: number }> => {
    const asked = input.block;
    const walked = balancesList(list, asked);
    const key = decodeCursorIfAny(input.cursor, walked, pages.keySchema, ctx.cursorSecret);
    const [row] = await bodies(
      ctx.db,
      { address: input.address, k0: key?.[0] ?? null, k1: key?.[1] ?? null, block: asked ?? null },
      `${order}|${key ? 'after' : 'first'}|${input.limit + 1}|${asked === undefined ? 'now' : 'at'}`,
    );
    const block = Number(row?.ib ?? 0);
    checkBalancesBlock(asked, block, Number(row?.hf ?? 0));
    if (!row?.token) throw tokenNotFound(input.address);
    const last = [row.last_k0, row.last_k1] as [string | number, string | number];
    const page = pageJson(row, input.limit, last, () =>
      encodeCursor(walked, pages.cursorKey?.(last) ?? last, ctx.cursorSecret, block),
    );
    return { page, block };
  };
}
