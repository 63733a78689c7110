/**
 * The keyset lists `npm run bench:worst` mints cursors in (bench/lib/worst-fixtures.ts): each
 * list's rows and sort key, and the keys at its top, middle and bottom.
 */
import type { CursorValue } from '../../server/api/cursor';
import type { Sql } from './worst-fixtures';

export async function countOf(sql: Sql, text: string, params: (string | number)[]): Promise<number> {
  const [row] = await sql.unsafe<{ n: string }[]>(text, params);
  return Number(row?.n ?? 0);
}

/** Where a keyset list starts and ends, and keys inside it. */
export interface KeyPoints {
  /** Rows in the list (counted up to `countCap`). */
  rows: number;
  /** Key of the first row: a cursor after it reads page 2. */
  first: CursorValue[] | undefined;
  /** Key of the row half way through the list. */
  middle: CursorValue[] | undefined;
  /** By limit L: key of the (L + 1)-th row from the end, so the page after it is the last full one. */
  lastPage: Map<number, CursorValue[]>;
  /** Key of the last row: the page after it is empty. */
  last: CursorValue[] | undefined;
}

export interface KeyColumn {
  /** Column the list orders by (descending unless `ascending`). */
  column: string;
  /** How the key value is read (e.g. `market_cap::text`). */
  select: string;
  kind: 'number' | 'text';
}

/** One keyset list: its rows (`from … where …`, parameters `$1…`) and its sort key. */
export interface ListSpec {
  from: string;
  where: string;
  params: (string | number)[];
  key: KeyColumn[];
  /** Ordered ascending (holdings by token address); descending otherwise. */
  ascending?: boolean;
}

const countCap = 5_000_000;

function toKey(spec: ListSpec, row: Record<string, unknown>): CursorValue[] {
  return spec.key.map((column, index) => {
    const value = row[`k${index}`];
    if (value === null || value === undefined) throw new Error(`null key value in ${spec.from}`);
    return column.kind === 'number' ? Number(value) : String(value);
  });
}

/** Key points of one list: first, middle, last full page per limit, and last row. */
export async function keyPoints(sql: Sql, spec: ListSpec, limits: readonly number[]): Promise<KeyPoints> {
  const select = spec.key.map((column, index) => `${column.select} as k${index}`).join(', ');
  const direction = (reverse: boolean) => ((spec.ascending ?? false) !== reverse ? 'asc' : 'desc');
  const order = (reverse: boolean) =>
    spec.key.map((column) => `${column.column} ${direction(reverse)}`).join(', ');
  const one = async (tail: string, params: (string | number)[] = spec.params) => {
    const rows = await sql.unsafe<Record<string, unknown>[]>(
      `select ${select} from ${spec.from} where ${spec.where} ${tail}`,
      params,
    );
    return rows[0] ? toKey(spec, rows[0]) : undefined;
  };
  const first = await one(`order by ${order(false)} limit 1`);
  const last = await one(`order by ${order(true)} limit 1`);
  // The middle by rows (a midpoint of values can miss: a token's events are its launch, then trades
  // millions of blocks later).
  const rows = await countOf(
    sql,
    `select count(*)::text as n from (select 1 from ${spec.from} where ${spec.where} limit ${countCap}) c`,
    spec.params,
  );
  const middle = await one(`order by ${order(false)} limit 1 offset ${Math.floor(rows / 2)}`);
  const lastPage = new Map<number, CursorValue[]>();
  for (const limit of limits) {
    const key = await one(`order by ${order(true)} limit 1 offset ${limit}`);
    if (key) lastPage.set(limit, key);
  }
  return { rows, first, middle, lastPage, last };
}

const chainPosition = (block: string, log: string): KeyColumn[] => [
  { column: block, select: `${block}::text`, kind: 'number' },
  { column: log, select: log, kind: 'number' },
];
const addressColumn = (column: string): KeyColumn => ({ column, select: column, kind: 'text' });
const created = chainPosition('created_block', 'created_log_index');
/** A token list ranked by one value, ties broken by address. */
const ranked = (column: string, select: string, kind: KeyColumn['kind']): KeyColumn[] => [
  { column, select, kind },
  addressColumn('address'),
];
const tokenList = (where: string, key: KeyColumn[]): ListSpec => ({ from: 'tokens', where, params: [], key });
/** A list of one token's (or creator's, or wallet's) rows: `$1` is its address. */
const listOf =
  (from: string, where: string, key: KeyColumn[], extra: Partial<ListSpec> = {}) =>
  (address: string): ListSpec => ({ from, where, params: [address], key, ...extra });

/** The token lists' orders (server/api/routers/tokens/list.ts), by cursor list name. */
export const tokenListSpecs = {
  'tokens.new': tokenList('not excluded', created),
  'tokens.linked': tokenList('not excluded and has_links', created),
  'tokens.top': tokenList('not excluded', ranked('market_cap', 'market_cap::text', 'text')),
  'tokens.near': tokenList(
    "not excluded and lifecycle = 'curve'",
    ranked('progress_bps', 'progress_bps', 'number'),
  ),
  'tokens.trending': tokenList(
    'not excluded and trending_score > 0',
    ranked('trending_score', 'trending_score', 'number'),
  ),
} satisfies Record<string, ListSpec>;

export const creatorTokensSpec = listOf('tokens', 'creator = $1 and not excluded', created);
export const tradesSpec = listOf('trades', 'token_address = $1', chainPosition('block_number', 'log_index'));
export const activitySpec = listOf(
  'chain_events',
  'token_address = $1',
  chainPosition('block_number', 'log_index'),
);
export const holdersSpec = listOf('balances', 'token_address = $1 and kind = 0', [
  { column: 'balance', select: 'balance::text', kind: 'text' },
  addressColumn('wallet'),
]);
export const holdingsSpec = listOf('balances', 'wallet = $1', [addressColumn('token_address')], {
  ascending: true,
});
