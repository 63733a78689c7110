import { isDeepStrictEqual } from 'node:util';
import { CHART_INTERVALS, type ChartIntervalName, type Oracle } from './model';
import { getJson, type Json, walkPages } from './walk';

/** One answer of the service that is not what the oracle computed. */
export interface Difference {
  path: string;
  limit?: number;
  message: string;
  expected?: unknown;
  actual?: unknown;
}

export interface Comparison {
  /** Whole answers compared (a walked list counts once per limit). */
  answers: number;
  /** HTTP requests made (every page of every walk). */
  requests: number;
  differences: Difference[];
}

const VIEWS = ['new', 'top', 'near', 'linked'] as const;
const ACTIVITY_KINDS = ['launch', 'trade', 'graduation', 'transfer', 'swap'] as const;

/**
 * Asks the service every read the oracle can answer and compares: each list walked page by page
 * at every limit (the concatenation must equal the oracle's list, order included), each single
 * answer (detail, pricing, every chart interval, creator) compared whole.
 */
export async function compareWithOracle(
  baseUrl: string,
  oracle: Oracle,
  options: { limits?: number[]; maxSearches?: number; maxWallets?: number } = {},
): Promise<Comparison> {
  const limits = options.limits ?? [1, 7, 100];
  const result: Comparison = { answers: 0, requests: 0, differences: [] };
  const block = oracle.head.number;
  const enc = encodeURIComponent;

  const list = async (path: string, expected: Json[]) => {
    for (const limit of limits) {
      result.answers++;
      try {
        const walked = await walkPages(baseUrl, path, limit, block);
        result.requests += walked.pages;
        const at = firstDifference(walked.items, expected);
        if (at !== undefined)
          result.differences.push({
            path,
            limit,
            message: `item ${at} of ${expected.length} expected (${walked.items.length} answered)`,
            expected: expected[at],
            actual: walked.items[at],
          });
      } catch (error) {
        result.differences.push({ path, limit, message: (error as Error).message });
      }
    }
  };
  const single = async (path: string, expected: Json | undefined) => {
    result.answers++;
    result.requests++;
    const { status, body } = await getJson(baseUrl, path);
    if (expected === undefined) {
      if (status !== 404)
        result.differences.push({ path, message: `status ${status}, expected 404`, actual: body });
      return;
    }
    if (status !== 200 || !isDeepStrictEqual(body, expected))
      result.differences.push({ path, message: `status ${status}`, expected, actual: body });
  };

  /** Paging a chart back with `to` = the earliest time received tiles the whole series. */
  const chartPagedBack = async (token: string) => {
    const path = `/api/v1/tokens/${token}/chart?interval=1m&limit=7`;
    const points: Json[] = [];
    let to: number | undefined;
    for (;;) {
      result.requests++;
      const { status, body } = await getJson(baseUrl, `${path}${to === undefined ? '' : `&to=${to}`}`);
      const items = (body?.items ?? []) as Json[];
      if (status !== 200 || items.length === 0) break;
      points.unshift(...items);
      to = items[0]?.time as number;
    }
    result.answers++;
    const expected = oracle.chart(token, '1m', { limit: 1_000_000 })?.items as Json[];
    const at = firstDifference(points, expected);
    if (at !== undefined)
      result.differences.push({
        path: `${path} paged back by to`,
        message: `point ${at} of ${expected.length} expected (${points.length} answered)`,
        expected: expected[at],
        actual: points[at],
      });
  };

  for (const route of ['/api/v1/tokens', '/api/v1/tokens/newest']) {
    await list(route, oracle.tokens());
    for (const view of VIEWS) await list(`${route}?view=${view}`, oracle.tokens({ view }));
  }
  for (const route of ['/api/v1/tokens/trending', '/api/v1/trending']) {
    await list(route, oracle.trending());
    for (const view of VIEWS) await list(`${route}?view=${view}`, oracle.trending({ view }));
  }
  const searches = oracle.searchTerms().slice(0, options.maxSearches ?? Number.POSITIVE_INFINITY);
  for (const search of searches) {
    await list(`/api/v1/tokens?search=${enc(search)}`, oracle.tokens({ search }));
    await list(`/api/v1/tokens/trending?search=${enc(search)}`, oracle.trending({ search }));
  }
  for (const token of oracle.tokenAddresses) {
    await single(`/api/v1/tokens/${token}`, oracle.detail(token));
    await single(`/api/v1/tokens/${token}/pricing`, oracle.pricing(token));
    for (const interval of Object.keys(CHART_INTERVALS) as ChartIntervalName[]) {
      await single(`/api/v1/tokens/${token}/chart?interval=${interval}`, oracle.chart(token, interval));
      await single(
        `/api/v1/tokens/${token}/chart?interval=${interval}&fill=previous&limit=40`,
        oracle.chart(token, interval, { limit: 40, fill: 'previous' }),
      );
    }
    const trades = oracle.trades(token);
    const first = trades.at(-1)?.block_timestamp as number | undefined;
    if (first !== undefined) {
      // A window that cuts buckets on both sides, and a limit below the bucket count.
      const from = first + 600;
      const to = from + 3 * 86_400;
      await single(
        `/api/v1/tokens/${token}/chart?interval=1h&from=${from}&to=${to}&limit=5`,
        oracle.chart(token, '1h', { from, to, limit: 5 }),
      );
      await single(
        `/api/v1/tokens/${token}/chart?interval=15m&from=${from}&to=${to}&limit=100&fill=previous`,
        oracle.chart(token, '15m', { from, to, limit: 100, fill: 'previous' }),
      );
      await single(
        `/api/v1/tokens/${token}/chart?interval=1m&limit=1000`,
        oracle.chart(token, '1m', { limit: 1000 }),
      );
    }
    if (first !== undefined) await chartPagedBack(token);
    await list(`/api/v1/tokens/${token}/trades`, trades);
    await list(`/api/v1/tokens/${token}/activity`, oracle.activity(token));
    for (const kind of ACTIVITY_KINDS)
      await list(`/api/v1/tokens/${token}/activity?kind=${kind}`, oracle.activity(token, kind));
    await list(`/api/v1/tokens/${token}/holders`, oracle.holders(token));
    for (const sort of ['realized_pnl', 'volume', 'holding'])
      await list(`/api/v1/tokens/${token}/traders?sort=${sort}`, oracle.tokenTraders(token, sort));
  }
  // Bulk lookups: every token (50 at a time) in a scrambled order and mixed case, with repeats
  // and addresses that were never launched.
  const scrambled = [...oracle.tokenAddresses].sort((a, b) => (a.slice(-6) < b.slice(-6) ? -1 : 1));
  for (let i = 0; i < scrambled.length; i += 45) {
    const chunk = scrambled.slice(i, i + 45);
    const asked = [
      ...chunk.map((a, j) => (j % 2 === 0 ? a.toUpperCase().replace('0X', '0x') : a)),
      ...chunk.slice(0, 2),
      `0x${'00'.repeat(19)}${String(i % 100).padStart(2, '0')}`,
    ];
    await single(`/api/v1/tokens/batch?addresses=${asked.join(',')}`, oracle.batch(asked));
  }

  // Balances at past blocks: each token's holders and some wallets' holdings at blocks drawn
  // from the chain (a block that moved balances, any block since the first, the head), seeded by
  // the head's hash so each chain gets its own; and a block past the index is refused.
  const draw = seededDraw(oracle.head.hash);
  const transferBlocks = oracle.transferBlocks();
  const first = transferBlocks[0] as number;
  const blocksToAsk = () => [
    ...new Set([
      transferBlocks[draw(transferBlocks.length)] as number,
      first + draw(block - first + 1),
      block,
    ]),
  ];
  for (const token of oracle.tokenAddresses)
    for (const at of blocksToAsk())
      await list(`/api/v1/tokens/${token}/holders?block=${at}`, oracle.holdersAt(token, at));
  for (const wallet of oracle.wallets.slice(0, options.maxWallets ?? Number.POSITIVE_INFINITY))
    for (const at of blocksToAsk())
      await list(`/api/v1/wallets/${wallet}/holdings?block=${at}`, oracle.holdingsAt(wallet, at));
  for (const path of [
    `/api/v1/tokens/${oracle.tokenAddresses[0]}/holders?block=${block + 1}`,
    `/api/v1/wallets/${oracle.wallets[0]}/holdings?block=${block + 1}`,
  ]) {
    result.answers++;
    result.requests++;
    const { status, body } = await getJson(baseUrl, path);
    const message = String((body?.error as Json | undefined)?.message ?? '');
    if (status !== 400 || !message.includes(`indexed block ${block}`))
      result.differences.push({
        path,
        message: `status ${status}, expected 400 naming block ${block}`,
        actual: body,
      });
  }

  for (const creator of oracle.creators) {
    await single(`/api/v1/creators/${creator}`, oracle.creator(creator));
    await list(`/api/v1/creators/${creator}/tokens`, oracle.creatorTokens(creator));
  }
  for (const wallet of oracle.wallets.slice(0, options.maxWallets ?? Number.POSITIVE_INFINITY)) {
    await list(`/api/v1/wallets/${wallet}/holdings`, oracle.holdings(wallet));
    await list(`/api/v1/wallets/${wallet}/pnl`, oracle.walletPnl(wallet));
  }
  return result;
}

/** Draws integers in [0, n) from a generator seeded by `seed` (a hash): the same picks for the same chain. */
function seededDraw(seed: string): (n: number) => number {
  let state = Number.parseInt(seed.slice(2, 10), 16) >>> 0;
  return (n) => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * n);
  };
}

function firstDifference(actual: Json[], expected: Json[]): number | undefined {
  const length = Math.max(actual.length, expected.length);
  for (let i = 0; i < length; i++) if (!isDeepStrictEqual(actual[i], expected[i])) return i;
  return undefined;
}

/** A difference as a person reads it: the request, what was expected, what came. */
export function describeDifference(difference: Difference): string {
  const show = (value: unknown) => {
    const text = JSON.stringify(value);
    return text === undefined ? 'nothing' : text.length > 1_500 ? `${text.slice(0, 1_500)}…` : text;
  };
  return [
    `${difference.path}${difference.limit === undefined ? '' : ` (limit ${difference.limit})`}: ${difference.message}`,
    ...(difference.expected !== undefined || difference.actual !== undefined
      ? [`  expected ${show(difference.expected)}`, `  answered ${show(difference.actual)}`]
      : []),
  ].join('\n');
}
