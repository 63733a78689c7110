import { type Placeholder, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { AddressPageInput } from '../../../shared/api/common';
import { indexedThroughBlockSql } from '../../db/checkpoint';
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

export type PageParam = 'address' | 'k0' | 'k1';

/** Where a page of a token's rows starts and how its cursor is keyed. */
export interface TokenPages<Key extends readonly [CursorValue, CursorValue], Order extends string> {
  /** One item's JSON over numbered row `x` (json-sql.ts). */
  item: SQL;
  /**
   * At most `rows` of the token's (`param('address')`) rows in page order, numbered `n` from 1,
   * after the key (`param('k0')`, `param('k1')`) when `after`, in the page's `order`.
   */
  numbered(param: (name: PageParam) => Placeholder | SQL, after: boolean, rows: number, order: Order): SQL;
  /** The key's two columns of numbered row `x` in `order`. */
  keys(order: Order): readonly [string, string];
  keySchema: z.ZodType<Key>;
  /** The cursor's key from the last item's key columns as the driver returns them. */
  cursorKey?: (last: [string | number, string | number]) => Key;
}

/**
 * Keyset pages of one token's rows (its trades, holders, traders) as JSON, each in one statement
 * with the checkpoint and whether the token exists: a page of an address that is no launched
 * token is a 404. Statements are compiled per (order, first or after, rows).
 */
export function tokenPages<Key extends readonly [CursorValue, CursorValue], Order extends string = ''>(
  pages: TokenPages<Key, Order>,
) {
  const bodies = compiledReads<
    {
      ib: string | number;
      token: string | null;
      items: string | null;
      n: string | number;
      last_k0: string | number | null;
      last_k1: string | number | null;
    },
    PageParam,
    string
  >((param, variant) => {
    const [order, position, rows] = variant.split('|') as [Order, string, string];
    const fetched = Number(rows);
    // The token's rows are those of the token row `tk` the statement looked up, not of the
    // parameter: with the parameter, PostgreSQL planned the page anew on every execution for a
    // token with many rows (a custom plan per value, ~1.5 ms each), where this plans it once.
    const at = (name: PageParam) => (name === 'address' ? sql.raw('tk.address') : param(name));
    const numbered = pages.numbered(at, position === 'after', fetched, order);
    const [k0, k1] = pages.keys(order);
    return sql`select ${indexedThroughBlockSql} as ib, tk.address as token, p.items, p.n, p.last_k0, p.last_k1
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral ${jsonPageSql(pages.item, numbered, fetched - 1, { k0, k1 })} p on true`;
  });
  /** The page of `list` that `input` asks for, as `"items":[…],"next_cursor":…`, and its block. */
  return async (
    ctx: Context,
    input: AddressPageInput,
    list: string,
    order: Order,
  ): Promise<{ page: string; block: number }> => {
    const key = decodeCursorIfAny(input.cursor, list, pages.keySchema, ctx.cursorSecret);
    const [row] = await bodies(
      ctx.db,
      { address: input.address, k0: key?.[0] ?? null, k1: key?.[1] ?? null },
      `${order}|${key ? 'after' : 'first'}|${input.limit + 1}`,
    );
    if (!row?.token) throw tokenNotFound(input.address);
    const block = Number(row.ib);
    const last = [row.last_k0, row.last_k1] as [string | number, string | number];
    const page = pageJson(row, input.limit, last, () =>
      encodeCursor(list, pages.cursorKey?.(last) ?? last, ctx.cursorSecret, block),
    );
    return { page, block };
  };
}
