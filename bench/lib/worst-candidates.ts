/**
 * The requests `npm run bench:worst` times, route by route: every parameter the API accepts
 * pushed to its extremes over the seeded dataset (bench/lib/worst-fixtures.ts), cursors
 * minted at the top, middle and bottom of each keyset list and at the bounds of their key
 * ranges, and a few requests just outside what is accepted (their refusals are listed).
 */
import { encodeCursor } from '../../server/api/cursor';
import {
  amountExtremes,
  type Candidate,
  chainExtremes,
  type Extremes,
  keysetCandidates,
  type ListKeys,
  make,
  progressExtremes,
  searchCandidate,
  trendingExtremes,
} from './worst-candidate-kit';
import { addTokenCandidates } from './worst-candidates-tokens';
import { type Fixtures, seededTokenAddress } from './worst-fixtures';
import type { searchTexts } from './worst-search-texts';

export type { Candidate, ListKeys, SearchText } from './worst-candidate-kit';
export { LIMITS } from './worst-candidate-kit';
export { searchTexts } from './worst-search-texts';

/** Every candidate, by route, in the order they are timed. */
export function buildCandidates(
  fixtures: Fixtures,
  keys: ListKeys,
  texts: ReturnType<typeof searchTexts>,
  secret: string,
): Map<string, Candidate[]> {
  const routes = new Map<string, Candidate[]>();
  const add = (route: string, candidates: Candidate[]) =>
    routes.set(route, [...(routes.get(route) ?? []), ...candidates]);
  const f = fixtures;
  const tokensFixtures = [
    f.busiest,
    ...(f.mostHolders.address === f.busiest.address ? [] : [f.mostHolders]),
    f.newest,
  ];

  // Token lists: every view (and none) at every limit and cursor position; then searches.
  const tokensRoute = 'GET /api/v1/tokens';
  for (const view of [undefined, 'new', 'top', 'near', 'linked'] as const) {
    const list = view === undefined || view === 'new' ? 'tokens.new' : `tokens.${view}`;
    const extremes =
      view === 'top'
        ? amountExtremes
        : view === 'near'
          ? progressExtremes
          : (chainExtremes satisfies Extremes);
    add(
      tokensRoute,
      keysetCandidates(
        tokensRoute,
        '/api/v1/tokens',
        [],
        view ? [['view', view]] : [],
        list,
        keys.get(list),
        extremes,
        secret,
      ),
    );
  }
  add(
    tokensRoute,
    texts.all.map((text) => searchCandidate(tokensRoute, '/api/v1/tokens', text, 'tokens.search', secret)),
  );
  add(tokensRoute, [
    make(tokensRoute, '/api/v1/tokens', [], [['limit', '0']]),
    make(tokensRoute, '/api/v1/tokens', [], [['limit', '101']]),
    make(
      tokensRoute,
      '/api/v1/tokens',
      [],
      [
        ['search', 'moon'],
        ['view', 'top'],
      ],
    ),
    make(tokensRoute, '/api/v1/tokens', [], [['cursor', 'v1.garbage.mac']]),
    make(
      tokensRoute,
      '/api/v1/tokens',
      [],
      [
        ['search', '', 'search= (empty)'],
        ['view', 'top'],
        ['limit', '100'],
      ],
    ),
    make(
      tokensRoute,
      '/api/v1/tokens',
      [],
      [
        ['search', '   ', 'search=3 spaces'],
        ['view', 'near'],
        ['limit', '100'],
      ],
    ),
    make(
      tokensRoute,
      '/api/v1/tokens',
      [],
      [
        [
          'cursor',
          encodeCursor('tokens.top', amountExtremes.max, secret, 0),
          'cursor=of view=top, without it',
        ],
      ],
    ),
  ]);

  // Trending: no filter, each view, searches (a search with a view is refused).
  const trendingRoute = 'GET /api/v1/tokens/trending';
  const trendingKeys = keys.get('tokens.trending');
  for (const view of [undefined, 'new', 'top', 'near', 'linked'] as const)
    add(
      trendingRoute,
      keysetCandidates(
        trendingRoute,
        '/api/v1/tokens/trending',
        [],
        view ? [['view', view]] : [],
        'tokens.trending',
        trendingKeys,
        trendingExtremes,
        secret,
      ),
    );
  add(
    trendingRoute,
    texts.trending.map((text) =>
      searchCandidate(trendingRoute, '/api/v1/tokens/trending', text, 'tokens.trending', secret),
    ),
  );
  add(trendingRoute, [
    make(
      trendingRoute,
      '/api/v1/tokens/trending',
      [],
      [
        ['search', 'moon'],
        ['view', 'near'],
      ],
    ),
    make(
      trendingRoute,
      '/api/v1/tokens/trending',
      [],
      [
        ['search', 'zzzz'],
        ['view', 'linked'],
      ],
    ),
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

  addTokenCandidates(add, f, keys, tokensFixtures, secret);
  return routes;
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
