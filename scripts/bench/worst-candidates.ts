/**
 * The requests `npm run bench:worst` times, route by route: every parameter the API accepts
 * pushed to its extremes over the seeded dataset (scripts/bench/worst-fixtures.ts), cursors
 * minted at the top, middle and bottom of each keyset list and at the bounds of their key
 * ranges, and a few requests just outside what is accepted (their refusals are listed).
 */
import { type CursorValue, encodeCursor } from '../../server/api/cursor';
import { INT4_MAX, searchListName } from '../../server/api/cursor-keys';
import { candleIntervals } from '../../server/db/schema/trades';
import { TRENDING_SCORE_MAX } from '../../server/tokens/trending';
import { normalizeSearchText } from '../../shared/search-text';
import {
  type Fixtures,
  type KeyPoints,
  MAX_ADDRESS,
  seededTokenAddress,
  type TokenFixture,
  ZERO_ADDRESS,
} from './worst-fixtures';

export interface Candidate {
  /** `GET /api/v1/tokens/{address}`: the route as the OpenAPI document names it. */
  route: string;
  /** The parameters, readable (cursors as the key they hold). */
  params: string;
  /** Path and query to request. */
  path: string;
  /** `stream`: timed to the first event of the catch-up (server-sent events). */
  kind: 'json' | 'stream';
  /** Requests made from this one's 200 answer (page 2 by its `next_cursor`, …). */
  follow?: (answer: { nextCursor: string | null }) => Candidate[];
}

/** Key points of every keyset list, by cursor list name. */
export type ListKeys = Map<string, KeyPoints>;

export const LIMITS = [1, 20, 100] as const;

type Param = [name: string, value: string, shown?: string];

const short = (value: string, max = 24) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);
/** An address as its first and last hex digits (seeded addresses differ at the end). */
const abbrev = (address: string) =>
  /^0x[0-9a-f]{40}$/.test(address) ? `${address.slice(0, 5)}…${address.slice(-4)}` : address;
const showKey = (key: readonly CursorValue[]) =>
  `[${key.map((value) => (typeof value === 'string' ? (value.startsWith('0x') ? abbrev(value) : short(value, 14)) : String(value))).join(', ')}]`;

function make(
  route: string,
  path: string,
  shownPath: string[],
  params: Param[],
  kind: Candidate['kind'] = 'json',
) {
  const query = params.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
  const shown = [...shownPath, ...params.map(([name, value, label]) => label ?? `${name}=${short(value)}`)];
  return {
    route,
    params: shown.length > 0 ? shown.join(', ') : '(none)',
    path: query ? `${path}?${query}` : path,
    kind,
  } satisfies Candidate;
}

/** Positions in a keyset list a cursor can hold, for pages of `limit` rows. */
type Extremes = { max: CursorValue[]; min: CursorValue[] };

const chainExtremes: Extremes = { max: [Number.MAX_SAFE_INTEGER, INT4_MAX], min: [0, 0] };
const amountExtremes: Extremes = { max: ['9'.repeat(78), MAX_ADDRESS], min: ['0', ZERO_ADDRESS] };
const progressExtremes: Extremes = { max: [10_000, MAX_ADDRESS], min: [0, ZERO_ADDRESS] };
const trendingExtremes: Extremes = {
  max: [TRENDING_SCORE_MAX, MAX_ADDRESS],
  min: [Number.MIN_VALUE, ZERO_ADDRESS],
};
const addressExtremes: Extremes = { max: [MAX_ADDRESS], min: [ZERO_ADDRESS] };
/** Search keys (rank, market cap, token): before every match, and after every match. */
const searchStart: CursorValue[] = [0, '9'.repeat(78), MAX_ADDRESS];
const searchEnd: CursorValue[] = [4, '0', ZERO_ADDRESS];

function positions(points: KeyPoints | undefined, limit: number, extremes: Extremes) {
  const list: [string, CursorValue[] | undefined][] = [
    ['page 2', points?.first],
    ['middle', points?.middle],
    [`last page`, points?.lastPage.get(limit)],
    ['after the last row', points?.last],
    ['key max', extremes.max],
    ['key min', extremes.min],
  ];
  return list.filter((entry): entry is [string, CursorValue[]] => entry[1] !== undefined);
}

/** Page 1 at each limit, then a cursor at each position at each limit. */
function keysetCandidates(
  route: string,
  path: string,
  shownPath: string[],
  extra: Param[],
  list: string,
  points: KeyPoints | undefined,
  extremes: Extremes,
  secret: string,
): Candidate[] {
  const out: Candidate[] = [];
  for (const limit of LIMITS) {
    out.push(make(route, path, shownPath, [...extra, ['limit', String(limit)]]));
    for (const [label, key] of positions(points, limit, extremes))
      out.push(
        make(route, path, shownPath, [
          ...extra,
          ['limit', String(limit)],
          ['cursor', encodeCursor(list, key, secret, 0), `cursor=${label} ${showKey(key)}`],
        ]),
      );
  }
  return out;
}

/** `search=` text, with how it is shown (the raw text, or a description of it). */
export interface SearchText {
  value: string;
  shown: string;
}

/** The searches tried on /tokens (all of them) and on trending (the `trending` ones). */
export function searchTexts(fixtures: Fixtures): { all: SearchText[]; trending: SearchText[] } {
  const plain = (value: string, note?: string): SearchText => ({
    value,
    shown: `search=${JSON.stringify(value)}${note ? ` (${note})` : ''}`,
  });
  const zeros = (n: number) => '0'.repeat(n);
  const hexPrefixes = [
    '0x',
    ...[1, 2, 3, 4].map((n) => `0x${zeros(n)}`),
    ...[1, 2, 3, 4].map((n) => `0x${'f'.repeat(n)}`),
    `0x${zeros(36)}`,
    `0x${zeros(37)}`,
    `0x${zeros(37)}1`,
    `0x${zeros(35)}f`,
    seededTokenAddress(1),
  ].map((value) => plain(value, `${value.length - 2} hex digits`));
  const hexOnly = [
    '00',
    '000',
    '0000',
    'ab',
    'ba',
    'bad',
    'be',
    'ca',
    'cafe',
    'de',
    'dead',
    'f0',
    'fe',
    'face',
    '12',
    '123',
    '1234',
    '999999',
    zeros(40),
    seededTokenAddress(1).slice(2),
  ].map((value) => plain(value, 'hex only'));
  const oneCharacter = [...'abcdefghijklmnopqrstuvwxyz0123456789'].map((value) => plain(value));
  const dense = fixtures.prefixes.map(({ prefix, terms }) =>
    plain(prefix, `${terms.toLocaleString('en-US')} terms`),
  );
  const symbol = fixtures.commonSymbol;
  const exact = [
    plain(symbol.term, `exact symbol of ${symbol.tokens} tokens`),
    plain(symbol.term.toUpperCase(), 'exact symbol, upper case'),
  ];
  const shaped = [
    'pepe w',
    'moon frog',
    'moon frog 1',
    'moon.frog',
    'moon.',
    'a.b',
    '...',
    '   m   ',
    'm o',
    '_',
    '-',
    'moon_frog',
    'moon-frog',
    '1.5',
    ' 0 x',
  ].map((value) => plain(value));
  const unicode: SearchText[] = [
    { value: 'é', shown: 'search="é"' },
    { value: 'ﬃ', shown: 'search="ﬃ" (NFKC: ffi)' },
    { value: 'ｍｏｏｎ', shown: 'search=fullwidth "moon" (NFKC: moon)' },
    { value: '０ｘ０', shown: 'search=fullwidth "0x0" (NFKC: 0x0)' },
    { value: 'ﷺ'.repeat(21), shown: 'search=21 × U+FDFA (63 bytes; NFKC: 18 characters each)' },
    { value: 'é'.repeat(32), shown: 'search=32 × "é" (64 bytes)' },
    { value: `${'é'.repeat(32)}a`, shown: 'search=32 × "é" + "a" (65 bytes)' },
    { value: 'a'.repeat(64), shown: 'search=64 × "a"' },
    { value: 'a'.repeat(65), shown: 'search=65 × "a"' },
  ];
  const none = ['zzzz', 'xyz', 'q'].map((value) => plain(value, 'no match'));
  const refused = ['%', 'moon%', "a'b"].map((value) => plain(value));
  const all = [
    ...oneCharacter,
    ...hexPrefixes,
    ...hexOnly,
    ...dense,
    ...exact,
    ...shaped,
    ...unicode,
    ...none,
    ...refused,
  ];
  const trending = [
    ...['a', 'p', '0', '1'].map((value) => plain(value)),
    ...hexPrefixes.filter((text) => ['0x', '0x0000', `0x${zeros(37)}1`].includes(text.value)),
    ...dense,
    ...exact.slice(0, 1),
    ...shaped.slice(0, 2),
    ...none,
  ];
  const unique = (texts: SearchText[]) => [...new Map(texts.map((text) => [text.value, text])).values()];
  return { all: unique(all), trending: unique(trending) };
}

/** A search at limit 100; after a 200, page 2 by its cursor and a cursor past every match. */
function searchCandidate(
  route: string,
  path: string,
  text: SearchText,
  listPrefix: string,
  secret: string,
): Candidate {
  const base: Param[] = [
    ['search', text.value, text.shown],
    ['limit', '100'],
  ];
  const page1 = make(route, path, [], base);
  const list = searchListName(listPrefix, normalizeSearchText(text.value));
  const endKey = listPrefix === 'tokens.trending' ? trendingExtremes.min : searchEnd;
  return {
    ...page1,
    follow: ({ nextCursor }) => [
      ...(nextCursor === null
        ? []
        : [make(route, path, [], [...base, ['cursor', nextCursor, 'cursor=from page 1']])]),
      make(
        route,
        path,
        [],
        [
          ...base,
          ['cursor', encodeCursor(list, endKey, secret, 0), `cursor=after every match ${showKey(endKey)}`],
        ],
      ),
      ...(listPrefix === 'tokens.search'
        ? [
            make(
              route,
              path,
              [],
              [
                ...base,
                [
                  'cursor',
                  encodeCursor(list, searchStart, secret, 0),
                  `cursor=before every match ${showKey(searchStart)}`,
                ],
              ],
            ),
          ]
        : []),
    ],
  };
}

const tokenShown = (token: TokenFixture) =>
  `{address}=${token.role} (${abbrev(token.address)}, ${token.trades.toLocaleString('en-US')} trades, ${token.holders.toLocaleString('en-US')} holders)`;

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

  // Detail and pricing.
  const graduated = seededTokenAddress(20);
  const singles: [string, string][] = [
    ...tokensFixtures.map((token) => [token.address, tokenShown(token)] as [string, string]),
    [f.showcase, `{address}=graduated, bound metadata, last trade on the pool (${abbrev(f.showcase)})`],
    [graduated, `{address}=graduated (${abbrev(graduated)})`],
    [f.busiest.address.toUpperCase().replace('0X', '0x'), '{address}=busiest, upper-case hex'],
    [MAX_ADDRESS, '{address}=unknown (0xff…ff)'],
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
  for (const token of tokensFixtures) {
    const path = `/api/v1/tokens/${token.address}/chart`;
    const shown = [tokenShown(token)];
    add(chartRoute, [make(chartRoute, path, shown, [])]);
    for (const [interval, seconds] of Object.entries(candleIntervals)) {
      const i: Param = ['interval', interval];
      const recent = String(f.head.timestamp - 1000 * seconds);
      add(chartRoute, [
        make(chartRoute, path, shown, [i]),
        make(chartRoute, path, shown, [i, ['limit', '1000']]),
        make(chartRoute, path, shown, [i, ['limit', '1000'], ['fill', 'previous']]),
        make(chartRoute, path, shown, [i, ['limit', '1000'], ['from', '0'], ['to', maxSeconds]]),
        make(chartRoute, path, shown, [
          i,
          ['limit', '1000'],
          ['from', '0'],
          ['to', maxSeconds],
          ['fill', 'previous'],
        ]),
        make(chartRoute, path, shown, [i, ['limit', '1'], ['from', '0'], ['to', maxSeconds]]),
        make(chartRoute, path, shown, [
          i,
          ['limit', '1000'],
          ['from', recent, `from=head − 1000 ${interval}`],
          ['to', String(f.head.timestamp + seconds), `to=head + 1 ${interval}`],
          ['fill', 'previous'],
        ]),
        make(chartRoute, path, shown, [
          i,
          ['limit', '1000'],
          ['from', String(f.head.timestamp + 1), 'from=head + 1 s'],
          ['fill', 'previous'],
        ]),
      ]);
    }
  }
  add(chartRoute, [
    make(chartRoute, `/api/v1/tokens/${MAX_ADDRESS}/chart`, ['{address}=unknown'], [['limit', '1000']]),
    make(chartRoute, `/api/v1/tokens/${f.busiest.address}/chart`, ['{address}=busiest'], [['limit', '1001']]),
    make(
      chartRoute,
      `/api/v1/tokens/${f.busiest.address}/chart`,
      ['{address}=busiest'],
      [['interval', '2h']],
    ),
    make(
      chartRoute,
      `/api/v1/tokens/${f.busiest.address}/chart`,
      ['{address}=busiest'],
      [
        ['from', '10'],
        ['to', '10'],
      ],
    ),
    make(
      chartRoute,
      `/api/v1/tokens/${f.busiest.address}/chart`,
      ['{address}=busiest'],
      [['fill', 'linear']],
    ),
    make(
      chartRoute,
      `/api/v1/tokens/${f.busiest.address}/chart`,
      ['{address}=busiest'],
      [['to', '9007199254740992']],
    ),
  ]);

  // Trades, activity, holders: each token at every limit and cursor position.
  const perToken = (
    route: string,
    suffix: string,
    list: (address: string) => string,
    extremes: Extremes,
    extra: Param[] = [],
  ) => {
    for (const token of tokensFixtures)
      add(
        route,
        keysetCandidates(
          route,
          `/api/v1/tokens/${token.address}${suffix}`,
          [tokenShown(token)],
          extra,
          list(token.address),
          keys.get(list(token.address)),
          extremes,
          secret,
        ),
      );
    add(route, [
      make(
        route,
        `/api/v1/tokens/${MAX_ADDRESS}${suffix}`,
        ['{address}=unknown (0xff…ff)'],
        [['limit', '100']],
      ),
      make(route, `/api/v1/tokens/${f.busiest.address}${suffix}`, ['{address}=busiest'], [['limit', '1000']]),
      make(
        route,
        `/api/v1/tokens/${f.busiest.address}${suffix}`,
        ['{address}=busiest'],
        [['cursor', encodeCursor('tokens.new', [1, 1], secret, 0), 'cursor=of another list']],
      ),
    ]);
  };
  const tradesRoute = 'GET /api/v1/tokens/{address}/trades';
  perToken(tradesRoute, '/trades', (address) => `trades:${address}`, chainExtremes);
  const activityRoute = 'GET /api/v1/tokens/{address}/activity';
  perToken(activityRoute, '/activity', (address) => `activity:${address}:*`, chainExtremes);
  // Each kind, over the positions of the unfiltered list: a rare kind walks the token's events.
  for (const token of tokensFixtures) {
    const points = keys.get(`activity:${token.address}:*`);
    for (const kind of ['launch', 'trade', 'graduation', 'transfer', 'swap']) {
      const path = `/api/v1/tokens/${token.address}/activity`;
      const list = `activity:${token.address}:${kind}`;
      const base: Param[] = [
        ['kind', kind],
        ['limit', '100'],
      ];
      add(activityRoute, [make(activityRoute, path, [tokenShown(token)], base)]);
      for (const [label, key] of positions(points, 100, chainExtremes).filter(([label]) =>
        ['page 2', 'middle', 'last page'].includes(label),
      ))
        add(activityRoute, [
          make(
            activityRoute,
            path,
            [tokenShown(token)],
            [
              ...base,
              ['cursor', encodeCursor(list, key, secret, 0), `cursor=${label} of all events ${showKey(key)}`],
            ],
          ),
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

  // Creators.
  const creatorRoute = 'GET /api/v1/creators/{address}';
  const creatorShown = `{address}=creator with most tokens (${abbrev(f.creator.address)}, ${f.creator.tokens} tokens)`;
  add(creatorRoute, [
    make(creatorRoute, `/api/v1/creators/${f.creator.address}`, [creatorShown], []),
    make(creatorRoute, `/api/v1/creators/${MAX_ADDRESS}`, ['{address}=unknown (0xff…ff)'], []),
    make(creatorRoute, `/api/v1/creators/${f.busiest.address}`, ['{address}=a token, not a creator'], []),
    make(creatorRoute, '/api/v1/creators/0x123', ['{address}=0x123'], []),
  ]);
  const creatorTokensRoute = 'GET /api/v1/creators/{address}/tokens';
  const creatorList = `creator.tokens:${f.creator.address}`;
  add(
    creatorTokensRoute,
    keysetCandidates(
      creatorTokensRoute,
      `/api/v1/creators/${f.creator.address}/tokens`,
      [creatorShown],
      [],
      creatorList,
      keys.get(creatorList),
      chainExtremes,
      secret,
    ),
  );
  add(creatorTokensRoute, [
    make(
      creatorTokensRoute,
      `/api/v1/creators/${MAX_ADDRESS}/tokens`,
      ['{address}=unknown (0xff…ff)'],
      [['limit', '100']],
    ),
    make(
      creatorTokensRoute,
      `/api/v1/creators/${MAX_ADDRESS}/tokens`,
      ['{address}=unknown (0xff…ff)'],
      [
        ['limit', '100'],
        [
          'cursor',
          encodeCursor(`creator.tokens:${MAX_ADDRESS}`, chainExtremes.max, secret, 0),
          `cursor=key max ${showKey(chainExtremes.max)}`,
        ],
      ],
    ),
  ]);

  // Wallet holdings.
  const holdingsRoute = 'GET /api/v1/wallets/{address}/holdings';
  const holdingsList = `holdings:${f.wallet.address}`;
  add(
    holdingsRoute,
    keysetCandidates(
      holdingsRoute,
      `/api/v1/wallets/${f.wallet.address}/holdings`,
      [`{address}=wallet with most balances (${abbrev(f.wallet.address)}, ${f.wallet.balances} balances)`],
      [],
      holdingsList,
      keys.get(holdingsList),
      addressExtremes,
      secret,
    ),
  );
  add(holdingsRoute, [
    make(
      holdingsRoute,
      `/api/v1/wallets/${MAX_ADDRESS}/holdings`,
      ['{address}=unknown (0xff…ff)'],
      [['limit', '100']],
    ),
    make(
      holdingsRoute,
      `/api/v1/wallets/${f.busiest.address}/holdings`,
      ['{address}=a token address'],
      [['limit', '100']],
    ),
  ]);

  // The live stream, timed to its first event: a resume replays up to 1,000 blocks.
  const streamRoute = 'GET /api/v1/stream';
  const since = (back: number, note?: string): Param => [
    'since',
    String(f.head.block - back),
    note ?? (back === 0 ? 'since=head' : back < 0 ? `since=head + ${-back}` : `since=head − ${back}`),
  ];
  add(streamRoute, [
    make(streamRoute, '/api/v1/stream', [], [], 'stream'),
    ...[0, 1, 10, 50, 99, 100, 500, 1000, 1001, -5].map((back) =>
      make(streamRoute, '/api/v1/stream', [], [since(back)], 'stream'),
    ),
    ...[99, 1000].map((back) =>
      make(
        streamRoute,
        '/api/v1/stream',
        [],
        [['token', f.busiest.address, 'token=busiest'], since(back)],
        'stream',
      ),
    ),
    make(
      streamRoute,
      '/api/v1/stream',
      [],
      [['token', f.newest.address, 'token=newest'], since(1000)],
      'stream',
    ),
    make(streamRoute, '/api/v1/stream', [], [['token', '0x123']], 'stream'),
  ]);

  add('GET /api/v1/openapi.json', [make('GET /api/v1/openapi.json', '/api/v1/openapi.json', [], [])]);
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
