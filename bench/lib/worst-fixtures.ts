/**
 * The extremes of the seeded dataset that `npm run bench:worst` aims its candidates at, found
 * with SQL that stays on indexes (or on statistics and samples where a table has tens of millions
 * of rows): the busiest token, the token with most holders, the creator with most tokens, the
 * wallet with most balances, the densest search prefixes, and the keys at the top, middle and
 * bottom of every keyset list (the values a cursor holds).
 */
import type postgres from 'postgres';
import type { CursorValue } from '../../server/api/cursor';

export type Sql = postgres.Sql;

/** The address of seeded token i (bench/lib/seed-sql.ts). */
export const seededTokenAddress = (index: number): string => `0x${index.toString(16).padStart(40, '0')}`;
export const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;
export const MAX_ADDRESS = `0x${'f'.repeat(40)}`;
/** The page sizes every list is read at. */
export const LIMITS = [1, 20, 100] as const;

/** A token's keyset lists (trades, activity, holders) and what the detail reads. */
export interface TokenFixture {
  role: string;
  address: string;
  trades: number;
  holders: number;
}

export interface Fixtures {
  head: { block: number; timestamp: number };
  /** Most trades (pg_stats of trades, verified by counting). */
  busiest: TokenFixture;
  /** Most holder balances (pg_stats of balances, verified by counting). */
  mostHolders: TokenFixture;
  /** The newest token: few trades, one burst. */
  newest: TokenFixture;
  /** Graduated, bound metadata, last trade on the pool: every detail group present. */
  showcase: string;
  /** The 50 tokens with most trades (the busiest first). */
  busiestFifty: string[];
  creator: { address: string; tokens: number };
  wallet: { address: string; balances: number; how: string };
  /** Search-term prefixes with their exact counts of matching terms (capped at `termCap`). */
  prefixes: { prefix: string; terms: number }[];
  /** The symbol shared by most tokens, and how many. */
  commonSymbol: { term: string; tokens: number };
}

const termCap = 1_000_000;

async function countOf(sql: Sql, text: string, params: (string | number)[]): Promise<number> {
  const [row] = await sql.unsafe<{ n: string }[]>(text, params);
  return Number(row?.n ?? 0);
}

/** Most common values of a column, from the planner's statistics (the inherited ones first). */
async function commonValues(sql: Sql, table: string, column: string): Promise<string[]> {
  const rows = await sql<{ vals: string[] | null }[]>`
    select most_common_vals::text::text[] as vals from pg_stats
     where schemaname = 'public' and tablename = ${table} and attname = ${column}
     order by inherited desc limit 1`;
  return rows[0]?.vals ?? [];
}

const tradeCount = (sql: Sql, token: string) =>
  countOf(sql, 'select count(*)::text as n from trades where token_address = $1', [token]);
const holderCount = (sql: Sql, token: string) =>
  countOf(sql, 'select count(*)::text as n from balances where token_address = $1 and kind = 0', [token]);

/** The value among `candidates` with the highest count (the first candidate on ties). */
async function best(candidates: string[], count: (value: string) => Promise<number>) {
  let winner = { value: candidates[0] ?? '', count: -1 };
  for (const value of candidates) {
    const n = await count(value);
    if (n > winner.count) winner = { value, count: n };
  }
  return winner;
}

/**
 * Every extreme of the dataset. Big tables are never scanned whole: their skew comes from
 * pg_stats and is verified by index counts, prefixes from a 5 % block sample of the search terms
 * (then counted exactly), the wallet with most balances by an index-only aggregate under a
 * statement timeout (a 2 % sample verified by counts when it times out).
 */
export async function findFixtures(
  sql: Sql,
  log: (line: string) => void,
  needs: { wallet: boolean; prefixes: boolean },
): Promise<Fixtures> {
  const [checkpoint] = await sql<{ block: string; ts: string }[]>`
    select indexed_through_block::text as block, block_timestamp::text as ts from indexer_checkpoint where id = 'main'`;
  if (!checkpoint) throw new Error('the database has no indexer checkpoint: is it seeded?');

  const tradeLeaders = (await commonValues(sql, 'trades', 'token_address')).slice(0, 3);
  const busiest = await best(tradeLeaders.length > 0 ? tradeLeaders : [seededTokenAddress(1)], (token) =>
    tradeCount(sql, token),
  );
  log(`busiest token ${busiest.value}: ${busiest.count.toLocaleString('en-US')} trades`);
  const holderLeaders = (await commonValues(sql, 'balances', 'token_address')).slice(0, 3);
  const mostHolders = await best(holderLeaders.length > 0 ? holderLeaders : [busiest.value], (token) =>
    holderCount(sql, token),
  );
  log(`token with most holders ${mostHolders.value}: ${mostHolders.count.toLocaleString('en-US')}`);
  const [newestRow] = await sql<{ address: string }[]>`
    select address from tokens where not excluded order by created_block desc, created_log_index desc limit 1`;
  const fixture = async (role: string, address: string, trades?: number, holders?: number) => ({
    role,
    address,
    trades: trades ?? (await tradeCount(sql, address)),
    holders: holders ?? (await holderCount(sql, address)),
  });

  const [showcaseRow] = await sql<{ address: string }[]>`
    select address from tokens where lifecycle = 'graduated' and draft_id is not null and last_trade_source = 'dex_v3' limit 1`;

  // The 50 busiest: the statistics' leaders, then the seed's popular range by trade count.
  const busiestFifty = [...new Set([...tradeLeaders, busiest.value])];
  for (let index = 1; busiestFifty.length < 50; index++) {
    const address = seededTokenAddress(index);
    if (!busiestFifty.includes(address)) busiestFifty.push(address);
  }

  const [creatorRow] = await sql<{ address: string; n: number }[]>`
    select address, tokens_launched as n from creators order by tokens_launched desc, address limit 1`;
  const creator = { address: creatorRow?.address ?? ZERO_ADDRESS, tokens: creatorRow?.n ?? 0 };
  log(`creator with most tokens ${creator.address}: ${creator.tokens}`);

  const wallet = needs.wallet
    ? await walletWithMostBalances(sql)
    : { address: ZERO_ADDRESS, balances: 0, how: 'not looked for' };
  if (needs.wallet) log(`wallet with most balances ${wallet.address}: ${wallet.balances} (${wallet.how})`);

  const { prefixes, commonSymbol } = needs.prefixes
    ? await densePrefixes(sql)
    : { prefixes: [], commonSymbol: { term: 'moofr1', tokens: 0 } };
  if (needs.prefixes)
    log(
      `search prefixes: ${prefixes.length} counted (${prefixes[0]?.prefix ?? '—'} densest, ${prefixes[0]?.terms.toLocaleString('en-US') ?? 0} terms); most common symbol ${commonSymbol.term} (${commonSymbol.tokens} tokens)`,
    );

  return {
    head: { block: Number(checkpoint.block), timestamp: Number(checkpoint.ts) },
    busiest: await fixture('busiest', busiest.value, busiest.count),
    mostHolders: await fixture('most holders', mostHolders.value, undefined, mostHolders.count),
    newest: await fixture('newest', newestRow?.address ?? seededTokenAddress(1)),
    showcase: showcaseRow?.address ?? busiest.value,
    busiestFifty: busiestFifty.slice(0, 50),
    creator,
    wallet,
    prefixes,
    commonSymbol,
  };
}

async function walletWithMostBalances(sql: Sql): Promise<Fixtures['wallet']> {
  try {
    const [row] = await sql.begin(async (tx) => {
      await tx.unsafe(`set local statement_timeout = '45s'`);
      return tx<{ wallet: string; n: string }[]>`
        select wallet, count(*)::text as n from balances group by wallet order by count(*) desc, wallet limit 1`;
    });
    if (row) return { address: row.wallet, balances: Number(row.n), how: 'exact: every wallet counted' };
  } catch (error) {
    if ((error as { code?: unknown }).code !== '57014') throw error;
  }
  const sampled = await sql<{ wallet: string }[]>`
    select wallet from balances tablesample system (2) repeatable (7)
     group by wallet order by count(*) desc, wallet limit 20`;
  const winner = await best(
    sampled.map((row) => row.wallet),
    (wallet) => countOf(sql, 'select count(*)::text as n from balances where wallet = $1', [wallet]),
  );
  return { address: winner.value, balances: winner.count, how: 'best of a 2 % sample’s top 20, counted' };
}

/**
 * Prefixes of the search terms with exact counts: from a 5 % block sample, every prefix of
 * length 1–12 with its estimated count; the densest per length and a spread of counts from a few
 * dozen terms to hundreds of thousands are then counted exactly on the prefix index.
 */
async function densePrefixes(sql: Sql): Promise<Pick<Fixtures, 'prefixes' | 'commonSymbol'>> {
  const sample = await sql<{ term: string; kind: number }[]>`
    select term, kind from token_search_terms tablesample system (5) repeatable (11)`;
  const estimate = new Map<string, number>();
  const symbols = new Map<string, number>();
  for (const { term, kind } of sample) {
    for (let length = 1; length <= Math.min(12, term.length); length++) {
      const prefix = term.slice(0, length);
      estimate.set(prefix, (estimate.get(prefix) ?? 0) + 20);
    }
    if (kind === 0) symbols.set(term, (symbols.get(term) ?? 0) + 1);
  }
  const chosen = new Set<string>();
  for (let length = 2; length <= 6; length++)
    for (const [prefix] of [...estimate]
      .filter(([prefix]) => prefix.length === length)
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3))
      chosen.add(prefix);
  // A spread of match counts: the most expensive accepted search sits just under whatever bound
  // the API puts on matches, so counts near every plausible bound are tried.
  const targets = [
    30, 100, 250, 500, 750, 1000, 1250, 1500, 1750, 1900, 2000, 2100, 2500, 3000, 4000, 6000, 10_000, 20_000,
    50_000, 100_000, 250_000,
  ];
  const entries = [...estimate].filter(([prefix]) => prefix.length >= 2);
  for (const target of targets) {
    // The two prefixes whose estimate is closest to the target (by ratio).
    const near: [string, number][] = [];
    for (const [prefix, count] of entries) {
      const distance = Math.abs(Math.log(count / target));
      if (near.length < 2 || distance < (near[1]?.[1] ?? Number.POSITIVE_INFINITY)) {
        near.push([prefix, distance]);
        near.sort((a, b) => a[1] - b[1]);
        near.length = Math.min(near.length, 2);
      }
    }
    for (const [prefix] of near) chosen.add(prefix);
  }
  const prefixes: Fixtures['prefixes'] = [];
  for (const prefix of chosen) {
    const terms = await countOf(
      sql,
      `select count(*)::text as n from (select 1 from token_search_terms where term like $1 limit ${termCap}) t`,
      [`${prefix.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`],
    );
    prefixes.push({ prefix, terms });
  }
  prefixes.sort((a, b) => b.terms - a.terms || a.prefix.localeCompare(b.prefix));

  const topSymbols = [...symbols].sort((a, b) => b[1] - a[1]).slice(0, 5);
  const common = await best(
    topSymbols.map(([term]) => term),
    (term) =>
      countOf(sql, 'select count(*)::text as n from token_search_terms where term = $1 and kind = 0', [term]),
  );
  return { prefixes, commonSymbol: { term: common.value, tokens: common.count } };
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

/** Key points of every keyset list, by cursor list name. */
export type ListKeys = Map<string, KeyPoints>;

/** A sort key column as read (`::text` where its values outgrow a double) and its type in a cursor. */
type KeyColumn = [select: string, kind: 'number' | 'text'];
/** One keyset list: its cursor name, rows (`from … where …`, `$1` its owner) and sort key (descending unless `ascending`). */
type List = [name: string, from: string, where: string, owner: string[], key: KeyColumn[], ascending?: true];

const countCap = 5_000_000;
const text = (select: string): KeyColumn => [select, 'text'];
const number = (select: string): KeyColumn => [select, 'number'];
const created = [number('created_block::text'), number('created_log_index')];
const onChain = [number('block_number::text'), number('log_index')];
/** A token list ranked by one value, ties broken by address. */
const ranked = (column: KeyColumn) => [column, text('address')];
const holderKey = [text('balance::text'), text('wallet')];

/**
 * Key points of the lists the candidates mint cursors in: the token lists' orders
 * (server/api/routers/tokens/list.ts), then the fixtures' own lists.
 */
export async function listKeys(sql: Sql, f: Fixtures): Promise<ListKeys> {
  const creator = f.creator.address;
  const wallet = f.wallet.address;
  const lists: List[] = [
    ['tokens.new', 'tokens', 'not excluded', [], created],
    ['tokens.linked', 'tokens', 'not excluded and has_links', [], created],
    ['tokens.top', 'tokens', 'not excluded', [], ranked(text('market_cap::text'))],
    ['tokens.near', 'tokens', "not excluded and lifecycle = 'curve'", [], ranked(number('progress_bps'))],
    [
      'tokens.trending',
      'tokens',
      'not excluded and trending_score > 0',
      [],
      ranked(number('trending_score')),
    ],
    [`creator.tokens:${creator}`, 'tokens', 'creator = $1 and not excluded', [creator], created],
    [`holdings:${wallet}`, 'balances', 'wallet = $1', [wallet], [text('token_address')], true],
    ...[f.busiest, f.mostHolders, f.newest].flatMap(({ address }): List[] => [
      [`trades:${address}`, 'trades', 'token_address = $1', [address], onChain],
      [`activity:${address}:*`, 'chain_events', 'token_address = $1', [address], onChain],
      [`holders:${address}`, 'balances', 'token_address = $1 and kind = 0', [address], holderKey],
    ]),
  ];
  const keys: ListKeys = new Map();
  for (const list of lists) if (!keys.has(list[0])) keys.set(list[0], await keyPoints(sql, list));
  return keys;
}

/** Key points of one list: first, middle, last full page per limit, and last row. */
async function keyPoints(sql: Sql, [, from, where, params, key, ascending]: List): Promise<KeyPoints> {
  const select = key.map(([column], index) => `${column} as k${index}`).join(', ');
  const order = (reverse: boolean) => {
    const direction = (ascending ?? false) !== reverse ? 'asc' : 'desc';
    return key.map(([column]) => `${column.replace('::text', '')} ${direction}`).join(', ');
  };
  const one = async (tail: string) => {
    const [row] = await sql.unsafe<Record<string, unknown>[]>(
      `select ${select} from ${from} where ${where} ${tail}`,
      params,
    );
    return row
      ? key.map(([, kind], index) => {
          const value = row[`k${index}`];
          if (value === null || value === undefined) throw new Error(`null key value in ${from}`);
          return kind === 'number' ? Number(value) : String(value);
        })
      : undefined;
  };
  const first = await one(`order by ${order(false)} limit 1`);
  const last = await one(`order by ${order(true)} limit 1`);
  // The middle by rows (a midpoint of values can miss: a token's events are its launch, then trades
  // millions of blocks later).
  const rows = await countOf(
    sql,
    `select count(*)::text as n from (select 1 from ${from} where ${where} limit ${countCap}) c`,
    params,
  );
  const middle = await one(`order by ${order(false)} limit 1 offset ${Math.floor(rows / 2)}`);
  const lastPage = new Map<number, CursorValue[]>();
  for (const limit of LIMITS) {
    const key = await one(`order by ${order(true)} limit 1 offset ${limit}`);
    if (key) lastPage.set(limit, key);
  }
  return { rows, first, middle, lastPage, last };
}
