import type { Sql, UnsafeQueryOptions } from 'postgres';
import { candleIntervals } from '../../server/db/schema/trades';
import { isAddress } from '../../shared/address';
import { type CursorKey, decodeFloorCursor, encodeFloorCursor, searchListName } from './floor-cursor';
import {
  activityItem,
  holderItem,
  holdingItem,
  listItem,
  pnlItem,
  type Row,
  tokenDetail,
  tradeItem,
  traderItem,
} from './floor-items';
import { type FloorStatement, floorStatementText } from './floor-queries';

/** Named and prepared even without parameters (`simple` is postgres.js's own, untyped option). */
const prepared = { prepare: true, simple: false } as UnsafeQueryOptions;

/** A floor answer: status and value; `indexedThroughBlock` prefixes the ETag as Launchdex's does. */
export interface FloorAnswer {
  status: number;
  value?: unknown;
  /** The body as written by PostgreSQL, when the statement wrote the JSON itself. */
  body?: string;
  indexedThroughBlock?: number;
}

// The candle widths are the schema's own constants, not its read path.
const intervals: Record<string, number> = candleIntervals;

const failure = (status: number, code: string, message: string): FloorAnswer => ({
  status,
  value: { error: { code, message } },
});
const notFound = (what: string) => failure(404, 'not_found', `no ${what}`);

/**
 * The floor's route classes over one postgres.js pool: parse the few parameters the benchmark
 * sends, run one prepared statement, shape the rows. Anything else is a 400 or 404: the floor is
 * an instrument, not a second API.
 */
export function createFloorAnswers(sql: Sql, cursorSecret: string) {
  /**
   * Runs a statement as a named prepared statement (postgres.js would send a statement without
   * parameters as a simple query, parsed and planned every time); `rows` is its literal row limit.
   */
  const run = (statement: FloorStatement, parameters: (string | number)[], rows = 1) =>
    sql.unsafe<Row[]>(floorStatementText(statement, rows), parameters, prepared);

  /**
   * `limit` rows and the cursor after the last when there is one more (rows hold limit + 1), at
   * the block the rows were read at: every list statement reads `indexed_through_block` as `ib`
   * in the same statement, as Launchdex's lists do.
   */
  function page<T>(
    rows: Row[],
    limit: number,
    toItem: (r: Row) => T,
    list: string,
    keyOf: (r: Row) => CursorKey,
  ) {
    const pageRows = rows.slice(0, limit);
    const last = pageRows.at(-1);
    return {
      items: pageRows.map(toItem),
      next_cursor:
        rows.length > limit && last
          ? encodeFloorCursor(list, keyOf(last), cursorSecret, Number(rows[0]?.ib ?? 0))
          : null,
    };
  }
  const chainPosition = (r: Row): CursorKey => [r.created_block as number, r.created_log_index as number];
  const capAndAddress = (r: Row): CursorKey => [r.market_cap as string, r.address as string];

  async function tokens(query: URLSearchParams, limit: number, trending: boolean): Promise<FloorAnswer> {
    const cursor = query.get('cursor');
    const view = query.get('view') ?? 'new';
    const search = (query.get('search') ?? '').normalize('NFKC').toLowerCase().trim().replace(/\s+/gu, ' ');
    if (trending) {
      if (cursor !== null || search !== '' || query.has('view'))
        return failure(400, 'invalid_parameter', 'the floor serves trending page 1 only');
      const rows = await run('trending', [], limit + 1);
      return {
        status: 200,
        value: page(rows, limit, listItem, 'tokens.trending', (r) => [
          r.trending_score as number,
          r.address as string,
        ]),
      };
    }
    if (search !== '') {
      if (cursor !== null || /^(0x)?[0-9a-f]+$/.test(search))
        return failure(400, 'invalid_parameter', 'the floor serves page 1 of a non-hex search only');
      const pattern = `${search.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
      const rows = await run('search', [pattern, search], limit + 1);
      return {
        status: 200,
        value: page(rows, limit, listItem, searchListName('tokens.search', search), (r) => [
          r.rank as number,
          r.market_cap as string,
          r.address as string,
        ]),
      };
    }
    if (view === 'new' && cursor !== null) {
      const key = decodeFloorCursor(cursor, 'tokens.new', cursorSecret);
      if (!key || typeof key[0] !== 'number' || typeof key[1] !== 'number')
        return failure(400, 'invalid_cursor', 'cursor is not valid for this list');
      const rows = await run('newestAfter', [key[0], key[1]], limit + 1);
      return { status: 200, value: page(rows, limit, listItem, 'tokens.new', chainPosition) };
    }
    if (cursor !== null) return failure(400, 'invalid_parameter', 'the floor pages the newest list only');
    switch (view) {
      case 'new':
        return {
          status: 200,
          value: page(await run('newest', [], limit + 1), limit, listItem, 'tokens.new', chainPosition),
        };
      case 'top':
        return {
          status: 200,
          value: page(await run('top', [], limit + 1), limit, listItem, 'tokens.top', capAndAddress),
        };
      case 'near':
        return {
          status: 200,
          value: page(await run('near', [], limit + 1), limit, listItem, 'tokens.near', (r) => [
            r.progress_bps as number,
            r.address as string,
          ]),
        };
      case 'linked':
        return {
          status: 200,
          value: page(await run('linked', [], limit + 1), limit, listItem, 'tokens.linked', chainPosition),
        };
      default:
        return failure(400, 'invalid_parameter', 'view must be one of new, top, near, linked');
    }
  }

  async function detail(address: string): Promise<FloorAnswer> {
    const [r] = await run('detail', [address]);
    if (!r) return notFound(`launched token at ${address}`);
    return { status: 200, value: tokenDetail(r), indexedThroughBlock: r.ib as number };
  }

  async function chart(address: string, query: URLSearchParams): Promise<FloorAnswer> {
    const interval = query.get('interval') ?? '1h';
    const seconds = Object.hasOwn(intervals, interval) ? intervals[interval] : undefined;
    const limit = limitOf(query.get('limit'), 168, 1000);
    if (seconds === undefined || limit === null)
      return failure(400, 'invalid_parameter', 'interval or limit');
    const [r] = await run('chart', [address, seconds], limit);
    if (!r) return notFound(`launched token at ${address}`);
    const ib = r.ib as number;
    return {
      status: 200,
      body: `{"token_address":"${address}","interval":"${interval}","indexed_through_block":${ib},"items":${r.items}}`,
      indexedThroughBlock: ib,
    };
  }

  /**
   * A per-token page read through `from tokens t left join lateral`: no row means no token.
   * Holders at `block` when given (a canonical block number; the benchmark asks indexed ones).
   */
  async function tokenPage(
    statement: 'trades' | 'activity' | 'holders',
    address: string,
    limit: number,
    block?: number,
  ): Promise<FloorAnswer> {
    const rows =
      block === undefined
        ? await run(statement, [address], limit + 1)
        : await run('holdersAt', [address, block], limit + 1);
    if (rows.length === 0) return notFound(`launched token at ${address}`);
    const found = rows.filter((r) => r.log_index !== null && r.log_index !== undefined);
    const position = (r: Row): CursorKey => [r.block_number as number, r.log_index as number];
    if (statement === 'trades') {
      const ib = rows[0]?.ib as number;
      const { items, next_cursor } = page(found, limit, tradeItem, `trades:${address}`, position);
      return {
        status: 200,
        value: { indexed_through_block: ib, items, next_cursor },
        indexedThroughBlock: ib,
      };
    }
    if (statement === 'activity')
      return {
        status: 200,
        value: page(found, limit, activityItem, `activity:${address}:*`, position),
      };
    const holders = rows.filter((r) => r.wallet !== null);
    return {
      status: 200,
      value: page(
        holders,
        limit,
        holderItem,
        `holders:${address}${block === undefined ? '' : `@${block}`}`,
        (r) => [r.balance as string, r.wallet as string],
      ),
    };
  }

  async function creator(address: string): Promise<FloorAnswer> {
    const [r] = await run('creator', [address]);
    if (!r) return notFound(`creator ${address}`);
    return { status: 200, value: r, indexedThroughBlock: r.indexed_through_block as number };
  }

  /** Routes `path` (already split at `?`) to its class. */
  return async function answer(path: string, query: URLSearchParams): Promise<FloorAnswer> {
    const parts = path.split('/');
    if (parts[1] !== 'api' || parts[2] !== 'v1') return notFound(`route ${path}`);
    const [, , , resource, id, sub, extra] = parts;
    // A chart reads its own limit (up to 1,000 candles); every list takes 1 to 100.
    const limit = sub === 'chart' ? 20 : limitOf(query.get('limit'), 20, 100);
    if (limit === null) return failure(400, 'invalid_parameter', 'limit must be an integer from 1 to 100');
    if (resource === 'trending' && id === undefined) return tokens(query, limit, true);
    if (extra !== undefined || id === undefined) {
      return resource === 'tokens' && id === undefined
        ? tokens(query, limit, false)
        : notFound(`route ${path}`);
    }
    if (resource === 'tokens' && sub === undefined && (id === 'newest' || id === 'trending'))
      return tokens(query, limit, id === 'trending');
    const address = addressOf(id);
    if (address === null) return failure(400, 'invalid_address', 'must be a 0x-prefixed 20-byte hex address');
    if (query.has('cursor')) return failure(400, 'invalid_parameter', 'the floor serves first pages here');
    if (resource === 'tokens') {
      switch (sub) {
        case undefined:
          return detail(address);
        case 'pricing': {
          const [r] = await run('pricing', [address]);
          return r
            ? { status: 200, value: r, indexedThroughBlock: r.indexed_through_block as number }
            : notFound(`launched token at ${address}`);
        }
        case 'chart':
          return chart(address, query);
        case 'trades':
        case 'activity':
          return tokenPage(sub, address, limit);
        case 'holders': {
          const block = query.get('block');
          if (block === null) return tokenPage(sub, address, limit);
          return /^(0|[1-9]\d{0,15})$/.test(block)
            ? tokenPage(sub, address, limit, Number(block))
            : failure(400, 'invalid_parameter', 'block must be a block number');
        }
        case 'traders': {
          if (query.has('sort'))
            return failure(400, 'invalid_parameter', 'the floor sorts by realized PnL only');
          const rows = await run('traders', [address], limit + 1);
          if (rows.length === 0) return notFound(`launched token at ${address}`);
          const found = rows.filter((r) => r.wallet !== null);
          return {
            status: 200,
            value: page(found, limit, traderItem, `traders:${address}:realized_pnl`, (r) => [
              r.realized_pnl as string,
              r.wallet as string,
            ]),
          };
        }
      }
    }
    if (resource === 'creators' && sub === undefined) return creator(address);
    if (resource === 'creators' && sub === 'tokens') {
      const rows = await run('creatorTokens', [address], limit + 1);
      return {
        status: 200,
        value: page(rows, limit, listItem, `creator.tokens:${address}`, chainPosition),
      };
    }
    if (resource === 'wallets' && sub === 'holdings') {
      const rows = await run('holdings', [address], limit + 1);
      return {
        status: 200,
        value: page(rows, limit, holdingItem, `holdings:${address}`, (r) => [r.address as string]),
      };
    }
    if (resource === 'wallets' && sub === 'pnl') {
      const rows = await run('pnl', [address], limit + 1);
      return {
        status: 200,
        value: page(rows, limit, pnlItem, `pnl:${address}`, (r) => [r.token as string]),
      };
    }
    return notFound(`route ${path}`);
  };
}

function limitOf(given: string | null, fallback: number, max: number): number | null {
  if (given === null) return fallback;
  const value = /^\d{1,4}$/.test(given) ? Number(given) : 0;
  return value >= 1 && value <= max ? value : null;
}

function addressOf(given: string): string | null {
  return isAddress(given) ? given.toLowerCase() : null;
}
