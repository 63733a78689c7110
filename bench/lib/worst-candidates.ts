/**
 * The requests `npm run bench:worst` times, route by route: every parameter the API accepts
 * pushed to its extremes over the seeded dataset (bench/lib/worst-fixtures.ts), cursors
 * minted at the top, middle and bottom of each keyset list and at the bounds of their key
 * ranges, and a few requests just outside what is accepted (their refusals are listed).
 */
import { encodeCursor } from '../../server/api/cursor';
import { candleIntervals } from '../../server/db/schema/trades';
import {
  abbrev,
  addressExtremes,
  amountExtremes,
  type Candidate,
  chainExtremes,
  type Extremes,
  keysetCandidates,
  type ListKeys,
  make,
  type Param,
  positions,
  progressExtremes,
  searchCandidate,
  showKey,
  tokenShown,
  trendingExtremes,
} from './worst-candidate-kit';
import { type Fixtures, MAX_ADDRESS, seededTokenAddress, type TokenFixture } from './worst-fixtures';
import type { searchTexts } from './worst-search-texts';

export type { Candidate, ListKeys, SearchText } from './worst-candidate-kit';
export { LIMITS } from './worst-candidate-kit';
export { searchTexts } from './worst-search-texts';

type Add = (route: string, candidates: Candidate[]) => void;

/** Candidates of one route and path, shown alike, that differ only by their parameters. */
const at =
  (route: string, path: string, shownPath: string[] = [], kind?: Candidate['kind']) =>
  (...params: Param[]) =>
    make(route, path, shownPath, params, kind);

const unknownShown = '{address}=unknown (0xff…ff)';

/** Every candidate, by route, in the order they are timed. */
export function buildCandidates(
  fixtures: Fixtures,
  keys: ListKeys,
  texts: ReturnType<typeof searchTexts>,
  secret: string,
): Map<string, Candidate[]> {
  const routes = new Map<string, Candidate[]>();
  const add: Add = (route, candidates) => routes.set(route, [...(routes.get(route) ?? []), ...candidates]);
  const f = fixtures;
  const views = [undefined, 'new', 'top', 'near', 'linked'] as const;

  // Token lists: every view (and none) at every limit and cursor position; then searches.
  const tokensRoute = 'GET /api/v1/tokens';
  for (const view of views) {
    const list = view === undefined || view === 'new' ? 'tokens.new' : `tokens.${view}`;
    const extremes: Extremes =
      view === 'top' ? amountExtremes : view === 'near' ? progressExtremes : chainExtremes;
    const viewParam: Param[] = view ? [['view', view]] : [];
    add(
      tokensRoute,
      keysetCandidates(tokensRoute, '/api/v1/tokens', [], viewParam, list, keys.get(list), extremes, secret),
    );
  }
  add(
    tokensRoute,
    texts.all.map((text) => searchCandidate(tokensRoute, '/api/v1/tokens', text, 'tokens.search', secret)),
  );
  const tokens = at(tokensRoute, '/api/v1/tokens');
  add(tokensRoute, [
    tokens(['limit', '0']),
    tokens(['limit', '101']),
    tokens(['search', 'moon'], ['view', 'top']),
    tokens(['cursor', 'v1.garbage.mac']),
    tokens(['search', '', 'search= (empty)'], ['view', 'top'], ['limit', '100']),
    tokens(['search', '   ', 'search=3 spaces'], ['view', 'near'], ['limit', '100']),
    tokens([
      'cursor',
      encodeCursor('tokens.top', amountExtremes.max, secret, 0),
      'cursor=of view=top, without it',
    ]),
  ]);

  // Trending: no filter, each view, searches (a search with a view is refused).
  const trendingRoute = 'GET /api/v1/tokens/trending';
  const trendingPath = '/api/v1/tokens/trending';
  const trendingKeys = keys.get('tokens.trending');
  for (const view of views) {
    const viewParam: Param[] = view ? [['view', view]] : [];
    add(
      trendingRoute,
      keysetCandidates(
        trendingRoute,
        trendingPath,
        [],
        viewParam,
        'tokens.trending',
        trendingKeys,
        trendingExtremes,
        secret,
      ),
    );
  }
  add(
    trendingRoute,
    texts.trending.map((text) =>
      searchCandidate(trendingRoute, trendingPath, text, 'tokens.trending', secret),
    ),
  );
  const trending = at(trendingRoute, trendingPath);
  add(trendingRoute, [
    trending(['search', 'moon'], ['view', 'near']),
    trending(['search', 'zzzz'], ['view', 'linked']),
  ]);

  // Batch: 50 addresses of the busiest tokens, and other sets of 50.
  const batchRoute = 'GET /api/v1/tokens/batch';
  const batch = (addresses: string[], shown: string) =>
    make(batchRoute, '/api/v1/tokens/batch', [], [['addresses', addresses.join(','), shown]]);
  const spread = Array.from({ length: 50 }, (_, i) => seededTokenAddress(1 + i * 19_997));
  const unknown = Array.from(
    { length: 50 },
    (_, i) => `0x${'f'.repeat(36)}${(i + 1).toString(16).padStart(4, '0')}`,
  );
  add(batchRoute, [
    batch(f.busiestFifty, 'addresses=the 50 busiest tokens'),
    batch(
      f.busiestFifty.map((address) => address.toUpperCase().replace('0X', '0x')),
      'addresses=the 50 busiest, upper-case hex',
    ),
    batch(spread, 'addresses=50 tokens spread over the whole list'),
    batch(unknown, 'addresses=50 unknown addresses'),
    batch(Array(50).fill(f.busiest.address), 'addresses=the busiest token 50 times'),
    batch([f.busiest.address], 'addresses=the busiest token'),
    batch([...f.busiestFifty, seededTokenAddress(51)], 'addresses=51 tokens'),
    batch([], 'addresses= (empty)'),
    batch([...f.busiestFifty.slice(0, 49), '0x123'], 'addresses=49 tokens and 0x123'),
  ]);

  const tokensFixtures = [
    f.busiest,
    ...(f.mostHolders.address === f.busiest.address ? [] : [f.mostHolders]),
    f.newest,
  ];
  addTokenCandidates(add, f, keys, tokensFixtures, secret);
  addOwnerCandidates(add, f, keys, secret);
  return routes;
}

/** Detail, pricing, chart, trades, activity and holders of the fixtures' tokens. */
function addTokenCandidates(
  add: Add,
  f: Fixtures,
  keys: ListKeys,
  tokensFixtures: TokenFixture[],
  secret: string,
): void {
  // Detail and pricing.
  const graduated = seededTokenAddress(20);
  const singles: [string, string][] = [
    ...tokensFixtures.map((token) => [token.address, tokenShown(token)] as [string, string]),
    [f.showcase, `{address}=graduated, bound metadata, last trade on the pool (${abbrev(f.showcase)})`],
    [graduated, `{address}=graduated (${abbrev(graduated)})`],
    [f.busiest.address.toUpperCase().replace('0X', '0x'), '{address}=busiest, upper-case hex'],
    [MAX_ADDRESS, unknownShown],
    ['0x123', '{address}=0x123'],
  ];
  for (const [suffix, name] of [
    ['', 'GET /api/v1/tokens/{address}'],
    ['/pricing', 'GET /api/v1/tokens/{address}/pricing'],
  ] as const)
    add(
      name,
      singles.map(([address, shown]) => make(name, `/api/v1/tokens/${address}${suffix}`, [shown], [])),
    );

  // Chart: every interval, limits, the widest range, gap-free.
  const chartRoute = 'GET /api/v1/tokens/{address}/chart';
  const maxSeconds = String(Number.MAX_SAFE_INTEGER);
  const widest: Param[] = [
    ['from', '0'],
    ['to', maxSeconds],
  ];
  const limit1000: Param = ['limit', '1000'];
  const previous: Param = ['fill', 'previous'];
  for (const token of tokensFixtures) {
    const chart = at(chartRoute, `/api/v1/tokens/${token.address}/chart`, [tokenShown(token)]);
    add(chartRoute, [chart()]);
    for (const [interval, seconds] of Object.entries(candleIntervals)) {
      const i: Param = ['interval', interval];
      const recent = String(f.head.timestamp - 1000 * seconds);
      add(chartRoute, [
        chart(i),
        chart(i, limit1000),
        chart(i, limit1000, previous),
        chart(i, limit1000, ...widest),
        chart(i, limit1000, ...widest, previous),
        chart(i, ['limit', '1'], ...widest),
        chart(
          i,
          limit1000,
          ['from', recent, `from=head − 1000 ${interval}`],
          ['to', String(f.head.timestamp + seconds), `to=head + 1 ${interval}`],
          previous,
        ),
        chart(i, limit1000, ['from', String(f.head.timestamp + 1), 'from=head + 1 s'], previous),
      ]);
    }
  }
  const busiestChart = at(chartRoute, `/api/v1/tokens/${f.busiest.address}/chart`, ['{address}=busiest']);
  add(chartRoute, [
    make(chartRoute, `/api/v1/tokens/${MAX_ADDRESS}/chart`, ['{address}=unknown'], [limit1000]),
    busiestChart(['limit', '1001']),
    busiestChart(['interval', '2h']),
    busiestChart(['from', '10'], ['to', '10']),
    busiestChart(['fill', 'linear']),
    busiestChart(['to', '9007199254740992']),
  ]);

  // Trades, activity, holders: each token at every limit and cursor position.
  const perToken = (route: string, suffix: string, list: (address: string) => string, extremes: Extremes) => {
    for (const token of tokensFixtures) {
      const path = `/api/v1/tokens/${token.address}${suffix}`;
      const name = list(token.address);
      add(
        route,
        keysetCandidates(route, path, [tokenShown(token)], [], name, keys.get(name), extremes, secret),
      );
    }
    const busiest = at(route, `/api/v1/tokens/${f.busiest.address}${suffix}`, ['{address}=busiest']);
    add(route, [
      make(route, `/api/v1/tokens/${MAX_ADDRESS}${suffix}`, [unknownShown], [['limit', '100']]),
      busiest(limit1000),
      busiest(['cursor', encodeCursor('tokens.new', [1, 1], secret, 0), 'cursor=of another list']),
    ]);
  };
  const tradesRoute = 'GET /api/v1/tokens/{address}/trades';
  perToken(tradesRoute, '/trades', (address) => `trades:${address}`, chainExtremes);
  const activityRoute = 'GET /api/v1/tokens/{address}/activity';
  perToken(activityRoute, '/activity', (address) => `activity:${address}:*`, chainExtremes);
  // Each kind, over the positions of the unfiltered list: a rare kind walks the token's events.
  for (const token of tokensFixtures) {
    const points = keys.get(`activity:${token.address}:*`);
    const activity = at(activityRoute, `/api/v1/tokens/${token.address}/activity`, [tokenShown(token)]);
    for (const kind of ['launch', 'trade', 'graduation', 'transfer', 'swap']) {
      const list = `activity:${token.address}:${kind}`;
      const base: Param[] = [
        ['kind', kind],
        ['limit', '100'],
      ];
      add(activityRoute, [activity(...base)]);
      for (const [label, key] of positions(points, 100, chainExtremes).filter(([label]) =>
        ['page 2', 'middle', 'last page'].includes(label),
      ))
        add(activityRoute, [
          activity(...base, [
            'cursor',
            encodeCursor(list, key, secret, 0),
            `cursor=${label} of all events ${showKey(key)}`,
          ]),
        ]);
    }
  }
  add(activityRoute, [
    make(
      activityRoute,
      `/api/v1/tokens/${f.busiest.address}/activity`,
      ['{address}=busiest'],
      [['kind', 'mint']],
    ),
  ]);
  const holdersRoute = 'GET /api/v1/tokens/{address}/holders';
  perToken(holdersRoute, '/holders', (address) => `holders:${address}`, amountExtremes);
}

/** A creator's page and tokens, a wallet's holdings, the stream and the OpenAPI document. */
function addOwnerCandidates(add: Add, f: Fixtures, keys: ListKeys, secret: string): void {
  // Creators.
  const creatorRoute = 'GET /api/v1/creators/{address}';
  const creatorShown = `{address}=creator with most tokens (${abbrev(f.creator.address)}, ${f.creator.tokens} tokens)`;
  const creator = (address: string, shown: string) =>
    make(creatorRoute, `/api/v1/creators/${address}`, [shown], []);
  add(creatorRoute, [
    creator(f.creator.address, creatorShown),
    creator(MAX_ADDRESS, unknownShown),
    creator(f.busiest.address, '{address}=a token, not a creator'),
    creator('0x123', '{address}=0x123'),
  ]);

  // A creator's tokens and a wallet's holdings: every limit and cursor position, then unknown owners.
  const owned = (
    route: string,
    path: (address: string) => string,
    list: (address: string) => string,
    owner: string,
    shown: string,
    extremes: Extremes,
  ) =>
    add(
      route,
      keysetCandidates(route, path(owner), [shown], [], list(owner), keys.get(list(owner)), extremes, secret),
    );
  const creatorTokensRoute = 'GET /api/v1/creators/{address}/tokens';
  const creatorTokensPath = (address: string) => `/api/v1/creators/${address}/tokens`;
  const creatorList = (address: string) => `creator.tokens:${address}`;
  owned(creatorTokensRoute, creatorTokensPath, creatorList, f.creator.address, creatorShown, chainExtremes);
  const unknownCreator = at(creatorTokensRoute, creatorTokensPath(MAX_ADDRESS), [unknownShown]);
  add(creatorTokensRoute, [
    unknownCreator(['limit', '100']),
    unknownCreator(
      ['limit', '100'],
      [
        'cursor',
        encodeCursor(creatorList(MAX_ADDRESS), chainExtremes.max, secret, 0),
        `cursor=key max ${showKey(chainExtremes.max)}`,
      ],
    ),
  ]);

  const holdingsRoute = 'GET /api/v1/wallets/{address}/holdings';
  const holdingsPath = (address: string) => `/api/v1/wallets/${address}/holdings`;
  const walletShown = `{address}=wallet with most balances (${abbrev(f.wallet.address)}, ${f.wallet.balances} balances)`;
  owned(
    holdingsRoute,
    holdingsPath,
    (address) => `holdings:${address}`,
    f.wallet.address,
    walletShown,
    addressExtremes,
  );
  add(holdingsRoute, [
    make(holdingsRoute, holdingsPath(MAX_ADDRESS), [unknownShown], [['limit', '100']]),
    make(holdingsRoute, holdingsPath(f.busiest.address), ['{address}=a token address'], [['limit', '100']]),
  ]);

  // The live stream, timed to its first event: a resume replays up to 1,000 blocks.
  const streamRoute = 'GET /api/v1/stream';
  const stream = at(streamRoute, '/api/v1/stream', [], 'stream');
  const since = (back: number): Param => [
    'since',
    String(f.head.block - back),
    back === 0 ? 'since=head' : back < 0 ? `since=head + ${-back}` : `since=head − ${back}`,
  ];
  add(streamRoute, [
    stream(),
    ...[0, 1, 10, 50, 99, 100, 500, 1000, 1001, -5].map((back) => stream(since(back))),
    ...[99, 1000].map((back) => stream(['token', f.busiest.address, 'token=busiest'], since(back))),
    stream(['token', f.newest.address, 'token=newest'], since(1000)),
    stream(['token', '0x123']),
  ]);

  add('GET /api/v1/openapi.json', [make('GET /api/v1/openapi.json', '/api/v1/openapi.json', [], [])]);
}

/** Routes whose answers are another route's (same handler, same parameters): timed on that one's slowest candidates. */
export const aliasRoutes: Record<string, { twin: string; from: string; to: string }> = {
  'GET /api/v1/tokens/newest': {
    twin: 'GET /api/v1/tokens',
    from: '/api/v1/tokens',
    to: '/api/v1/tokens/newest',
  },
  'GET /api/v1/trending': {
    twin: 'GET /api/v1/tokens/trending',
    from: '/api/v1/tokens/trending',
    to: '/api/v1/trending',
  },
};
