/** The candidates of the per-token, creator, wallet and stream routes (bench/lib/worst-candidates.ts). */
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
  showKey,
  tokenShown,
} from './worst-candidate-kit';
import { type Fixtures, MAX_ADDRESS, seededTokenAddress, type TokenFixture } from './worst-fixtures';

/** Adds the candidates of detail, pricing, chart, trades, activity, holders, creators, holdings and the stream. */
export function addTokenCandidates(
  add: (route: string, candidates: Candidate[]) => void,
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
}
