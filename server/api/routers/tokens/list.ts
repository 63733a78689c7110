import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import type { ListTokensInput, TokenPage, TokenView } from '../../../../shared/api/tokens';
import { normalizeSearchText, searchRank, searchTermKind } from '../../../../shared/search-text';
import { indexedThroughBlockColumn } from '../../../db/checkpoint';
import type { Database } from '../../../db/client';
import { createStatementCache, executePrepared } from '../../../db/prepared';
import { builderRowLimit } from '../../../db/row-limit';
import { metadataDrafts, tokenSearchTerms, tokens } from '../../../db/schema';
import { type CursorValue, decodeCursorIfAny, encodeCursor, keysetPage } from '../../cursor';
import {
  amountAndAddressKey,
  chainPositionKey,
  progressAndAddressKey,
  searchKey,
  searchListName,
  trendingKey,
} from '../../cursor-keys';
import type { Context } from '../../trpc';
import {
  boundDraftJoin,
  type TokenListFields,
  type TokenListRow,
  tokenRowColumns,
  toTokenListItem,
} from './rows';
import { narrowSearchPatterns } from './search-patterns';

/**
 * A keyset order over `tokens`: rows after `key` satisfy `after(key)`, and the order is served
 * by one partial index whose predicate is `filter` (see docs/decisions.md, "Indexes").
 */
interface TokenOrder<Key extends CursorValue[]> {
  /** The statement family: orders that share it differ only in their cursor's list name. */
  shape: string;
  list: string;
  filter: SQL | undefined;
  orderBy: SQL[];
  keySchema: z.ZodType<Key>;
  keyOf(row: TokenListFields): Key;
  /** Rows after the cursor's key, whose values are the placeholders `k0`, `k1`, …. */
  after: SQL;
}

/** A cursor key as the values of the `after` placeholders. */
const keyValues = (key: readonly CursorValue[]) =>
  Object.fromEntries(key.map((value, i) => [`k${i}`, value]));
const k0 = sql.placeholder('k0');
const k1 = sql.placeholder('k1');
const k2 = sql.placeholder('k2');

const newest = (shape: string, list: string, filter: SQL | undefined): TokenOrder<[number, number]> => ({
  shape,
  list,
  filter,
  orderBy: [desc(tokens.createdBlock), desc(tokens.createdLogIndex)],
  keySchema: chainPositionKey,
  keyOf: (row) => [row.createdBlock, row.createdLogIndex],
  after: sql`(${tokens.createdBlock}, ${tokens.createdLogIndex}) < (${k0}, ${k1})`,
});

const notExcluded = sql`not ${tokens.excluded}`;

const orders = {
  new: newest('new', 'tokens.new', notExcluded),
  linked: newest('linked', 'tokens.linked', sql`not ${tokens.excluded} and ${tokens.hasLinks}`),
  top: {
    shape: 'top',
    list: 'tokens.top',
    filter: notExcluded,
    orderBy: [desc(tokens.marketCap), desc(tokens.address)],
    keySchema: amountAndAddressKey,
    keyOf: (row) => [row.marketCap.toString(), row.address],
    after: sql`(${tokens.marketCap}, ${tokens.address}) < (${k0}::numeric, ${k1})`,
  } satisfies TokenOrder<[string, string]>,
  near: {
    shape: 'near',
    list: 'tokens.near',
    filter: sql`not ${tokens.excluded} and ${tokens.lifecycle} = 'curve'`,
    orderBy: [desc(tokens.progressBps), desc(tokens.address)],
    keySchema: progressAndAddressKey,
    keyOf: (row) => [row.progressBps, row.address],
    after: sql`(${tokens.progressBps}, ${tokens.address}) < (${k0}, ${k1})`,
  } satisfies TokenOrder<[number, string]>,
  trending: {
    shape: 'trending',
    list: 'tokens.trending',
    filter: sql`not ${tokens.excluded} and ${tokens.trendingScore} > 0`,
    orderBy: [desc(tokens.trendingScore), desc(tokens.address)],
    keySchema: trendingKey,
    keyOf: (row) => [row.trendingScore, row.address],
    after: sql`(${tokens.trendingScore}, ${tokens.address}) < (${k0}::float8, ${k1})`,
  } satisfies TokenOrder<[number, string]>,
} as const;

/**
 * Trending: tokens with indexed trading in the last 24 h by trending score
 * (server/tokens/trending.ts). `view` and `search` narrow the set and keep the order: `near` to
 * curve tokens, `linked` to tokens with links, a search to its matches; `new` and `top` add no
 * filter. The list is not an endorsement.
 */
export async function listTrending(ctx: Context, input: ListTokensInput): Promise<TokenPage> {
  const search = input.search === undefined ? '' : normalizeSearchText(input.search);
  const view = input.view === 'near' || input.view === 'linked' ? input.view : '';
  // A search never comes with a view (listTokensInput refuses the pair: search_view_conflict).
  if (search !== '') return searchTrending(ctx, search, input);
  const filter = trendingViewFilter[view];
  return listByOrder(
    ctx,
    orders.trending as TokenOrder<CursorValue[]>,
    input,
    filter === undefined ? undefined : { shape: view, filter, values: {} },
  );
}

/** What `view` narrows trending to: `near` curve tokens, `linked` tokens with links. */
const trendingViewFilter = {
  '': undefined,
  near: sql`${tokens.lifecycle} = 'curve'`,
  linked: sql`${tokens.hasLinks}`,
} as const satisfies Record<string, SQL | undefined>;

/**
 * Trending narrowed by a search: the matches (at most SEARCH_MAX_MATCHES, index range scans),
 * then their token rows by primary key, sorted by trending score. Walking the trending index and
 * testing each token against the search read every trending token when few of them matched
 * (143k of them, ~30 ms warm and 0.4 s cold, on the 1M-token dataset).
 */
function searchTrending(ctx: Context, search: string, input: ListTokensInput): Promise<TokenPage> {
  return searchPage(ctx, search, input, {
    list: orders.trending.list,
    keySchema: orders.trending.keySchema,
    keyOf: (row) => orders.trending.keyOf(row.token),
    statement: trendingSearchStatements,
  });
}

/** A search page's statement variant: address matches or not, with or without cursor, rows. */
type SearchVariant = [byAddress: boolean, after: boolean, rows: number];

/** An order of a search's matches: its cursor's list (before the search's digest) and key. */
interface SearchOrder<Row extends TokenListRow & { ib: number }, Key extends CursorValue[]> {
  list: string;
  keySchema: z.ZodType<Key>;
  keyOf(row: Row): Key;
  statement(
    db: Database,
    ...variant: SearchVariant
  ): { execute(values?: Record<string, unknown>): Promise<Row[]> };
}

/**
 * Page statements of a search order, each variant built once: built per request, drizzle spent
 * ~0.3 ms of CPU assembling one, more than the rest of the request's CPU.
 */
function searchStatements<Statement>(
  family: string,
  build: (db: Database, name: string, ...variant: SearchVariant) => Statement,
) {
  const statements = createStatementCache<Statement>();
  return (db: Database, ...[byAddress, after, rows]: SearchVariant) => {
    const name = `${family}|${byAddress ? 'address' : 'terms'}|${after ? 'after' : 'first'}|${rows}`;
    return statements(db, name, (db) => build(db, name, byAddress, after, rows));
  };
}

/**
 * A page of a search's matches in `order`, over placeholders `search`, `pattern`,
 * `addressPattern` and the cursor's `k0`, `k1`, ….
 * @dev the list name carries a digest of the search, so a cursor of another search is foreign.
 */
async function searchPage<Row extends TokenListRow & { ib: number }, Key extends CursorValue[]>(
  ctx: Context,
  search: string,
  input: ListTokensInput,
  order: SearchOrder<Row, Key>,
): Promise<TokenPage> {
  const list = searchListName(order.list, search);
  const key = decodeCursorIfAny(input.cursor, list, order.keySchema, ctx.cursorSecret);
  const { pattern, addressPattern } = await narrowSearchPatterns(ctx.db, input.search ?? search, search);
  const byAddress = addressPattern !== null;
  const statement = order.statement(ctx.db, byAddress, key !== undefined, input.limit + 1);
  const rows = await executePrepared(statement, {
    search,
    pattern,
    ...(byAddress ? { addressPattern } : {}),
    ...(key === undefined ? {} : keyValues(key)),
  });
  const page = keysetPage(
    rows,
    input.limit,
    (last, block) => encodeCursor(list, order.keyOf(last), ctx.cursorSecret, block),
    rows[0]?.ib ?? 0,
  );
  return { items: page.rows.map(toTokenListItem), next_cursor: page.nextCursor };
}

/**
 * The trending search's page over placeholders (`pattern`, `addressPattern`, the cursor's `k0`,
 * `k1`), built once per variant. The matches are an array the statement computes first (an
 * InitPlan): the planner cannot see its length and probes the primary key once per match. As a
 * join or an `in (subquery)` it estimated the matches, hashed them and scanned all 143k trending
 * tokens with their rows (~400 ms) once 1,111 terms matched.
 */
function buildTrendingSearchPage(
  db: Database,
  name: string,
  byAddress: boolean,
  after: boolean,
  rows: number,
) {
  const order = orders.trending;
  const matches = sql`select ${tokenSearchTerms.tokenAddress} from ${tokenSearchTerms} where ${tokenSearchTerms.term} like ${sql.placeholder('pattern')}
    ${byAddress ? sql`union select ${tokens.address} from ${tokens} where ${tokens.address} like ${sql.placeholder('addressPattern')}` : sql``}`;
  return db
    .select({ ...tokenRowColumns, ib: indexedThroughBlockColumn })
    .from(tokens)
    .leftJoin(metadataDrafts, boundDraftJoin)
    .where(
      and(sql`${tokens.address} = any(array(${matches}))`, order.filter, after ? order.after : undefined),
    )
    .orderBy(...order.orderBy)
    .limit(builderRowLimit(rows))
    .prepare(name);
}

/**
 * A page of a token list: the default newest order, one of the views, or a search.
 * @dev fetches limit + 1 rows: the extra row only tells whether a next page exists.
 */
export async function listTokens(ctx: Context, input: ListTokensInput): Promise<TokenPage> {
  const search = input.search === undefined ? '' : normalizeSearchText(input.search);
  if (search !== '') return searchTokens(ctx, search, input);
  const view: TokenView = input.view ?? 'new';
  // `view=new` and no view share one list name, so their cursors are interchangeable.
  return listByOrder(ctx, orders[view] as TokenOrder<CursorValue[]>, input);
}

/** A narrowing of an order, over named placeholders; `shape` names it among its order's statements. */
export interface ExtraFilter {
  shape: string;
  filter: SQL;
  values: Record<string, unknown>;
}

function buildPage(
  db: Database,
  name: string,
  order: TokenOrder<CursorValue[]>,
  extra: ExtraFilter | undefined,
  after: boolean,
  rows: number,
) {
  return db
    .select({ ...tokenRowColumns, ib: indexedThroughBlockColumn })
    .from(tokens)
    .leftJoin(metadataDrafts, boundDraftJoin)
    .where(and(order.filter, extra?.filter, after ? order.after : undefined))
    .orderBy(...order.orderBy)
    .limit(builderRowLimit(rows))
    .prepare(name);
}

/**
 * Page statements by (order, extra filter, with or without cursor, limit): the limit is in the
 * text (see rowLimit), every request value a placeholder.
 */
const pageStatements = createStatementCache<ReturnType<typeof buildPage>>();

/** A page of one keyset order with an extra filter (e.g. one creator's tokens). */
export async function listByOrder(
  ctx: Context,
  order: TokenOrder<CursorValue[]>,
  input: { limit: number; cursor?: string | undefined },
  extra?: ExtraFilter,
): Promise<TokenPage> {
  const key = decodeCursorIfAny(input.cursor, order.list, order.keySchema, ctx.cursorSecret);
  const statementKey = `token_page|${order.shape}|${extra?.shape ?? ''}|${key ? 'after' : 'first'}|${input.limit + 1}`;
  const statement = pageStatements(ctx.db, statementKey, (db) =>
    buildPage(db, statementKey, order, extra, key !== undefined, input.limit + 1),
  );
  const rows = await executePrepared(statement, {
    ...extra?.values,
    ...(key === undefined ? {} : keyValues(key)),
  });
  const page = keysetPage(
    rows,
    input.limit,
    (last, block) => encodeCursor(order.list, order.keyOf(last.token), ctx.cursorSecret, block),
    rows[0]?.ib ?? 0,
  );
  return {
    items: page.rows.map(toTokenListItem),
    next_cursor: page.nextCursor,
  };
}

export const creatorTokensOrder = newest('creator', 'creator.tokens', undefined) as TokenOrder<CursorValue[]>;

/**
 * Prefix search ranked (`searchRank`): exact symbol first, then symbol prefix, name prefix,
 * name-word prefix, address prefix; ties by market cap, then address, all descending. Matches
 * come from index range scans (token_search_terms.term and tokens.address with text_pattern_ops);
 * only the matches are sorted.
 * @dev the list name carries a digest of the search, so a cursor of another search is foreign.
 */
function searchTokens(ctx: Context, search: string, input: ListTokensInput): Promise<TokenPage> {
  return searchPage<TokenListRow & { rank: number; ib: number }, z.output<typeof searchKey>>(
    ctx,
    search,
    input,
    {
      list: 'tokens.search',
      keySchema: searchKey,
      keyOf: (row) => [row.rank, row.token.marketCap.toString(), row.token.address],
      statement: tokenSearchStatements,
    },
  );
}

/**
 * The search page's statement, over placeholders (`search`, `pattern`, `addressPattern`, the
 * cursor's `k0`-`k2`), built once per variant (searchStatements).
 */
function buildSearchPage(db: Database, name: string, byAddress: boolean, after: boolean, rows: number) {
  // A term of kind k ranks k + 1, an exact symbol searchRank.exactSymbol (see searchRank).
  const matches = sql`
    select ${tokenSearchTerms.tokenAddress} as address,
           min(case when ${tokenSearchTerms.kind} = ${sql.raw(String(searchTermKind.symbol))} and ${tokenSearchTerms.term} = ${sql.placeholder('search')}
                    then ${sql.raw(String(searchRank.exactSymbol))} else ${tokenSearchTerms.kind} + 1 end) as rank
      from ${tokenSearchTerms}
     where ${tokenSearchTerms.term} like ${sql.placeholder('pattern')}
     group by ${tokenSearchTerms.tokenAddress}
    ${byAddress ? sql`union all select ${tokens.address}, ${sql.raw(String(searchRank.addressPrefix))} from ${tokens} where ${tokens.address} like ${sql.placeholder('addressPattern')}` : sql``}`;
  const ranked = sql`(select address, min(rank) as rank from (${matches}) m group by address)`;
  const rankColumn = sql<number>`ranked.rank`.mapWith(Number);
  return db
    .select({ ...tokenRowColumns, rank: rankColumn, ib: indexedThroughBlockColumn })
    .from(sql`${ranked} as ranked`)
    .innerJoin(tokens, eq(tokens.address, sql`ranked.address`))
    .leftJoin(metadataDrafts, boundDraftJoin)
    .where(
      and(
        notExcluded,
        // Rank ascends, market cap and address descend: the rows after the key.
        after
          ? sql`(ranked.rank > ${k0}::int or (ranked.rank = ${k0}::int and (${tokens.marketCap}, ${tokens.address}) < (${k1}::numeric, ${k2})))`
          : undefined,
      ),
    )
    .orderBy(sql`ranked.rank`, desc(tokens.marketCap), desc(tokens.address))
    .limit(builderRowLimit(rows))
    .prepare(name);
}

// Module-level: one cache of built statements per search order for the process (made per
// request, every search rebuilt and re-prepared its statement).
const trendingSearchStatements = searchStatements('token_trending_search', buildTrendingSearchPage);
const tokenSearchStatements = searchStatements('token_search', buildSearchPage);
