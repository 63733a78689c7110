import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { AddressPageInput } from '../../../shared/api/common';
import { indexedThroughBlockSql } from '../../db/checkpoint';
import { compiledRawReads, type RawValue } from '../../db/compiled-read';
import { type CursorValue, decodeCursorIfAny, encodeCursor } from '../cursor';
import { csvHeader, csvSql } from '../rest/csv-sql';
import { type ExportChunk, ExportCut, type ListExport } from '../rest/export';
import { type JsonColumns, jsonSql } from '../rest/json-sql';
import { type PageParam, type TokenPages, tokenNotFound } from './json-reads';

/**
 * CSV exports of one token's rows (docs/api.md, "CSV exports"): the statements of the JSON pages
 * (json-reads.ts, `tokenPages`) with the item written as a CSV record instead of JSON, in
 * chunks of the export's size, so an export is the JSON walk row for row.
 */

/** An item's JSON and CSV, both from its schema and one set of columns. */
export function itemRenderings<Schema extends z.ZodObject>(schema: Schema, columns: JsonColumns<Schema>) {
  return { item: jsonSql(schema, columns), csv: csvSql(schema, columns), header: csvHeader(schema) };
}

/** A token's list as {@link tokenPages} pages it, with what its export needs besides. */
export interface TokenList<Key extends readonly [CursorValue, CursorValue], Order extends string>
  extends TokenPages<Key, Order> {
  /** The CSV record of numbered row `x`. */
  csv: SQL;
  header: string;
  /**
   * The keys never change once a row is written (trades: block, log index): a walk after the
   * export's last row only goes wrong when a rollback went below the export's block. Otherwise
   * (balances, PnL) any change of the index may move rows across it.
   */
  stable: boolean;
}

type ExportParam = PageParam | 'seq' | 'block';

/**
 * Records per piece of a chunk's text: a piece of ~25 KB is a young string the scavenger frees,
 * where a chunk's 0.5 MB in one string went to the old generation and grew the heap by ~100 MB
 * between full collections over a million rows.
 */
const PIECE_ROWS = 100;

/** A raw row's value as text (keys, counts): postgres.js gives bytes, PGlite what it parsed. */
function textOf(value: RawValue): string | null {
  if (value === null) return null;
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString();
  return String(value);
}

/**
 * The export of a token's list named `name` (`trades`): for a parsed input, `listOf` names its
 * cursor list and order as its JSON pages do. The first statement reads the checkpoint, the last
 * `index_changes` entry, the rows counted up to the limit + 1 (so the head knows whether the
 * export is whole) and the first chunk; each next chunk reads after the last row written and
 * counts the index changes since that would have moved its rows (always none in PostgreSQL's
 * snapshot, export-session.ts).
 */
export function tokenExport<Key extends readonly [CursorValue, CursorValue], Order extends string, Input>(
  name: string,
  list: TokenList<Key, Order>,
  listOf: (input: Input & AddressPageInput) => { list: string; order: Order },
): ListExport {
  /**
   * At most `rows` rows after the key (when `after`) in pieces of {@link PIECE_ROWS} records, one
   * row each (numbered `piece`), with their count; the last piece has the last row's key.
   */
  const chunkSql = (
    param: Parameters<typeof list.numbered>[0],
    after: boolean,
    rows: number,
    order: Order,
  ): SQL => {
    const [k0, k1] = list.keys(order);
    const last = (key: string) => sql.raw(`max(${key}) filter (where x.n = ${rows})`);
    return sql`(select (x.n - 1) / ${sql.raw(String(PIECE_ROWS))} as piece,
                       string_agg(${list.csv}, '' order by x.n) as body, count(*) as n,
                       ${last(k0)} as last_k0, ${last(k1)} as last_k1
                  from ${list.numbered(param, after, rows, order, false)} x group by 1)`;
  };
  // Columns: a chunk's piece, body, n, last_k0, last_k1 (chunkOf), then the head's own.
  const heads = compiledRawReads<PageParam, string>((param, variant) => {
    const [order, position, limit, first] = variant.split('|') as [Order, string, string, string];
    const after = position === 'after';
    const at = (key: PageParam) => (key === 'address' ? sql.raw('tk.address') : param(key));
    const [k0, k1] = list.keys(order);
    const rows = Number(limit);
    const cut = (key: string) => sql.raw(`max(${key}) filter (where x.n = ${rows})`);
    return sql`select c.piece, c.body, c.n, c.last_k0, c.last_k1, ${indexedThroughBlockSql} as ib,
                      coalesce((select max(seq) from index_changes), 0) as seq, tk.address as token, h.total, h.cut_k0,
                      h.cut_k1
          from (select 1) one
          left join tokens tk on tk.address = ${param('address')}
          left join lateral (select count(*) as total, ${cut(k0)} as cut_k0, ${cut(k1)} as cut_k1
                               from ${list.numbered(at, after, rows + 1, order, false)} x) h on true
          left join lateral ${
            Number(first) > 0
              ? chunkSql(at, after, Number(first), order)
              : sql`(select 0 as piece, null::text as body, 0 as n, null as last_k0, null as last_k1)`
          } c on true
          order by c.piece`;
  });
  const chunks = compiledRawReads<ExportParam, string>((param, variant) => {
    const [order, rows] = variant.split('|') as [Order, string];
    const at = (key: PageParam) => (key === 'address' ? sql.raw('tk.address') : param(key));
    const moving = list.stable ? sql`and kind = 'rollback' and to_block < ${param('block')}` : sql``;
    return sql`select c.piece, c.body, c.n, c.last_k0, c.last_k1,
                        (select count(*) from index_changes where seq > ${param('seq')} ${moving}) as moved
          from tokens tk
          left join lateral ${chunkSql(at, true, Number(rows), order)} c on true
          where tk.address = ${param('address')}
          order by c.piece`;
  });
  const chunkOf = (rows: RawValue[][]): ExportChunk => {
    const chunk: ExportChunk = { pieces: [], rows: 0, last: null };
    for (const [, body, n, lastK0, lastK1] of rows) {
      if (body === null || body === undefined) continue;
      chunk.pieces.push(body instanceof Uint8Array ? body : String(body));
      chunk.rows += Number(textOf(n ?? null));
      const last = [textOf(lastK0 ?? null), textOf(lastK1 ?? null)];
      if (last[0] !== null && last[1] !== null) chunk.last = last as [string, string];
    }
    return chunk;
  };
  return {
    name,
    header: list.header,
    async head(ctx, db, input, rows) {
      const parsed = input as Input & AddressPageInput;
      const { list: cursorList, order } = listOf(parsed);
      const key = decodeCursorIfAny(parsed.cursor, cursorList, list.keySchema, ctx.cursorSecret);
      const pieces = await heads(
        db,
        // No `block`: an export is the list as it stands (the dispatcher refuses one at a block).
        { address: parsed.address, k0: key?.[0] ?? null, k1: key?.[1] ?? null, block: null },
        `${order}|${key ? 'after' : 'first'}|${rows.limit}|${rows.first}`,
      );
      const [, , , , , ib = null, seq = null, token = null, counted = null, cutK0 = null, cutK1 = null] =
        pieces[0] ?? [];
      if (token === null) throw tokenNotFound(parsed.address);
      const block = Number(textOf(ib));
      const total = Number(textOf(counted));
      const cut = [textOf(cutK0) ?? '', textOf(cutK1) ?? ''] as [string, string];
      return {
        block,
        seq: Number(textOf(seq)),
        rows: Math.min(total, rows.limit),
        next:
          total > rows.limit
            ? encodeCursor(cursorList, list.cursorKey?.(cut) ?? cut, ctx.cursorSecret, block)
            : null,
        first: chunkOf(pieces),
      };
    },
    async chunk(db, input, at, rows) {
      const parsed = input as Input & AddressPageInput;
      const { order } = listOf(parsed);
      const pieces = await chunks(
        db,
        { address: parsed.address, k0: at.after[0], k1: at.after[1], seq: at.seq, block: at.block },
        `${order}|${rows}`,
      );
      if (Number(textOf(pieces[0]?.[5] ?? null)) > 0) throw new ExportCut('index_moved');
      return chunkOf(pieces);
    },
  };
}
