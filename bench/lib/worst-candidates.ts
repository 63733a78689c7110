/**
 * The requests `npm run bench:worst` times, route by route: every parameter the API accepts
 * pushed to its extremes over the seeded dataset (bench/lib/worst-fixtures.ts), cursors
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
  LIMITS,
  type ListKeys,
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

/** A query parameter, and how it is shown when not as `name=value`. */
type Param = [name: string, value: string, shown?: string];
/** Candidates of one route and path, shown alike, that differ only by their parameters. */
type Page = (...params: Param[]) => Candidate;
/** `search=` text, with how it is shown (the raw text, or a description of it). */
type SearchText = { value: string; shown: string };
/** The bounds of a keyset list's key range. */
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

const short = (value: string, max = 24) => (value.length > max ? `${value.slice(0, max - 1)}…` : value);
/** An address as its first and last hex digits (seeded addresses differ at the end). */
const abbrev = (address: string) =>
  /^0x[0-9a-f]{40}$/.test(address) ? `${address.slice(0, 5)}…${address.slice(-4)}` : address;
const showKey = (key: readonly CursorValue[]) =>
  `[${key.map((value) => (typeof value === 'string' ? (value.startsWith('0x') ? abbrev(value) : short(value, 14)) : String(value))).join(', ')}]`;
const tokenShown = (token: TokenFixture) =>
  `{address}=${token.role} (${abbrev(token.address)}, ${token.trades.toLocaleString('en-US')} trades, ${token.holders.toLocaleString('en-US')} holders)`;
const upperHex = (address: string) => address.toUpperCase().replace('0X', '0x');
const unknownShown = '{address}=unknown (0xff…ff)';
const limit100: Param = ['limit', '100'];
const limit1000: Param = ['limit', '1000'];

const at =
  (route: string, path: string, shownPath: string[] = [], kind: Candidate['kind'] = 'json'): Page =>
  (...params) => {
    const query = params.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
    const shown = [...shownPath, ...params.map(([name, value, label]) => label ?? `${name}=${short(value)}`)];
    return {
      route,
      params: shown.length > 0 ? shown.join(', ') : '(none)',
      path: query ? `${path}?${query}` : path,
      kind,
    };
  };
/** Requests of `/api/v1/{owner}/{address}{suffix}` at one address. */
const of = (owner: string, suffix: string, address: string, shown: string) =>
  at(`GET /api/v1/${owner}/{address}${suffix}`, `/api/v1/${owner}/${address}${suffix}`, [shown]);

/** Positions in a keyset list a cursor can hold, for pages of `limit` rows. */
function positions(points: KeyPoints | undefined, limit: number, extremes: Extremes) {
  const list: [string, CursorValue[] | undefined][] = [
    ['page 2', points?.first],
    ['middle', points?.middle],
    ['last page', points?.lastPage.get(limit)],
    ['after the last row', points?.last],
    ['key max', extremes.max],
    ['key min', extremes.min],
  ];
  return list.filter((entry): entry is [string, CursorValue[]] => entry[1] !== undefined);
}

/** The searches tried on /tokens (all of them) and on trending (the `trending` ones). */
function searchTexts(fixtures: Fixtures): { all: SearchText[]; trending: SearchText[] } {
  const plain =
    (note?: string) =>
    (value: string): SearchText => ({
      value,
      shown: `search=${JSON.stringify(value)}${note ? ` (${note})` : ''}`,
    });
  const zeros = (n: number) => '0'.repeat(n);
  const hexPrefixes = [
    '',
    ...'0 00 000 0000 f ff fff ffff'.split(' '),
    zeros(36),
    zeros(37),
    `${zeros(37)}1`,
    `${zeros(35)}f`,
  ]
    .map((hex) => `0x${hex}`)
    .concat(seededTokenAddress(1))
    .map((value) => plain(`${value.length - 2} hex digits`)(value));
  const hexOnly = [
    ...'00 000 0000 ab ba bad be ca cafe de dead f0 fe face 12 123 1234 999999'.split(' '),
    zeros(40),
    seededTokenAddress(1).slice(2),
  ].map(plain('hex only'));
  const dense = fixtures.prefixes.map(({ prefix, terms }) =>
    plain(`${terms.toLocaleString('en-US')} terms`)(prefix),
  );
  const symbol = fixtures.commonSymbol;
  const exact = [
    plain(`exact symbol of ${symbol.tokens} tokens`)(symbol.term),
    plain('exact symbol, upper case')(symbol.term.toUpperCase()),
  ];
  const shaped =
    'pepe w|moon frog|moon frog 1|moon.frog|moon.|a.b|...|   m   |m o|_|-|moon_frog|moon-frog|1.5| 0 x'
      .split('|')
      .map(plain());
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
  const none = ['zzzz', 'xyz', 'q'].map(plain('no match'));
  const unique = (texts: SearchText[]) => [...new Map(texts.map((text) => [text.value, text])).values()];
  return {
    all: unique([
      ...[...'abcdefghijklmnopqrstuvwxyz0123456789'].map(plain()),
      ...hexPrefixes,
      ...hexOnly,
      ...dense,
      ...exact,
      ...shaped,
      ...unicode,
      ...none,
      ...['%', 'moon%', "a'b"].map(plain()),
    ]),
    trending: unique([
      ...['a', 'p', '0', '1'].map(plain()),
      ...hexPrefixes.filter((text) => ['0x', '0x0000', `0x${zeros(37)}1`].includes(text.value)),
      ...dense,
      ...exact.slice(0, 1),
      ...shaped.slice(0, 2),
      ...none,
    ]),
  };
}

/** Every candidate, by route, in the order they are timed. */
export function buildCandidates(f: Fixtures, keys: ListKeys, secret: string): Map<string, Candidate[]> {
  const texts = searchTexts(f);
  const out: Candidate[] = [];
  const minted = (list: string, key: CursorValue[]) => encodeCursor(list, key, secret, 0);
  const cursor = (list: string, key: CursorValue[], label: string): Param => [
    'cursor',
    minted(list, key),
    `cursor=${label} ${showKey(key)}`,
  ];
  /** Page 1 at each limit, then a cursor at each position at each limit. */
  const keyset = (page: Page, list: string, extremes: Extremes, extra: Param[] = []) =>
    LIMITS.flatMap((limit) => [
      page(...extra, ['limit', String(limit)]),
      ...positions(keys.get(list), limit, extremes).map(([label, key]) =>
        page(...extra, ['limit', String(limit)], cursor(list, key, label)),
      ),
    ]);
  /** A search at limit 100; after a 200, page 2 by its cursor and a cursor past every match. */
  const search =
    (page: Page, listPrefix: string) =>
    (text: SearchText): Candidate => {
      const base: Param[] = [['search', text.value, text.shown], limit100];
      const list = searchListName(listPrefix, normalizeSearchText(text.value));
      const endKey = listPrefix === 'tokens.trending' ? trendingExtremes.min : searchEnd;
      return {
        ...page(...base),
        follow: ({ nextCursor }) => [
          ...(nextCursor === null ? [] : [page(...base, ['cursor', nextCursor, 'cursor=from page 1'])]),
          page(...base, cursor(list, endKey, 'after every match')),
          ...(listPrefix === 'tokens.search'
            ? [page(...base, cursor(list, searchStart, 'before every match'))]
            : []),
        ],
      };
    };

  // Token lists and trending: every view (and none) at every limit and cursor position; then
  // searches (a search with a view is refused).
  const tokens = at('GET /api/v1/tokens', '/api/v1/tokens');
  const trending = at('GET /api/v1/tokens/trending', '/api/v1/tokens/trending');
  for (const view of [undefined, 'new', 'top', 'near', 'linked']) {
    const viewParam: Param[] = view ? [['view', view]] : [];
    const list = view === undefined || view === 'new' ? 'tokens.new' : `tokens.${view}`;
    const extremes = view === 'top' ? amountExtremes : view === 'near' ? progressExtremes : chainExtremes;
    out.push(
      ...keyset(tokens, list, extremes, viewParam),
      ...keyset(trending, 'tokens.trending', trendingExtremes, viewParam),
    );
  }
  out.push(
    ...texts.all.map(search(tokens, 'tokens.search')),
    tokens(['limit', '0']),
    tokens(['limit', '101']),
    tokens(['search', 'moon'], ['view', 'top']),
    tokens(['cursor', 'v1.garbage.mac']),
    tokens(['search', '', 'search= (empty)'], ['view', 'top'], limit100),
    tokens(['search', '   ', 'search=3 spaces'], ['view', 'near'], limit100),
    tokens(['cursor', minted('tokens.top', amountExtremes.max), 'cursor=of view=top, without it']),
    ...texts.trending.map(search(trending, 'tokens.trending')),
    trending(['search', 'moon'], ['view', 'near']),
    trending(['search', 'zzzz'], ['view', 'linked']),
  );

  // Batch: 50 addresses of the busiest tokens, and other sets of 50.
  const batch = (addresses: string[], shown: string) =>
    at('GET /api/v1/tokens/batch', '/api/v1/tokens/batch')(['addresses', addresses.join(','), shown]);
  const spread = Array.from({ length: 50 }, (_, i) => seededTokenAddress(1 + i * 19_997));
  const unknown = Array.from(
    { length: 50 },
    (_, i) => `0x${'f'.repeat(36)}${(i + 1).toString(16).padStart(4, '0')}`,
  );
  out.push(
    batch(f.busiestFifty, 'addresses=the 50 busiest tokens'),
    batch(f.busiestFifty.map(upperHex), 'addresses=the 50 busiest, upper-case hex'),
    batch(spread, 'addresses=50 tokens spread over the whole list'),
    batch(unknown, 'addresses=50 unknown addresses'),
    batch(Array(50).fill(f.busiest.address), 'addresses=the busiest token 50 times'),
    batch([f.busiest.address], 'addresses=the busiest token'),
    batch([...f.busiestFifty, seededTokenAddress(51)], 'addresses=51 tokens'),
    batch([], 'addresses= (empty)'),
    batch([...f.busiestFifty.slice(0, 49), '0x123'], 'addresses=49 tokens and 0x123'),
  );

  // Detail and pricing.
  const tokenFixtures = [
    f.busiest,
    ...(f.mostHolders.address === f.busiest.address ? [] : [f.mostHolders]),
    f.newest,
  ];
  const graduated = seededTokenAddress(20);
  const singles: [string, string][] = [
    ...tokenFixtures.map((token): [string, string] => [token.address, tokenShown(token)]),
    [f.showcase, `{address}=graduated, bound metadata, last trade on the pool (${abbrev(f.showcase)})`],
    [graduated, `{address}=graduated (${abbrev(graduated)})`],
    [upperHex(f.busiest.address), '{address}=busiest, upper-case hex'],
    [MAX_ADDRESS, unknownShown],
    ['0x123', '{address}=0x123'],
  ];
  for (const suffix of ['', '/pricing'])
    out.push(...singles.map(([address, shown]) => of('tokens', suffix, address, shown)()));

  // Chart: every interval, limits, the widest range, gap-free.
  const widest: Param[] = [
    ['from', '0'],
    ['to', String(Number.MAX_SAFE_INTEGER)],
  ];
  const previous: Param = ['fill', 'previous'];
  for (const token of tokenFixtures) {
    const chart = of('tokens', '/chart', token.address, tokenShown(token));
    out.push(chart());
    for (const [interval, seconds] of Object.entries(candleIntervals)) {
      const i: Param = ['interval', interval];
      out.push(
        chart(i),
        chart(i, limit1000),
        chart(i, limit1000, previous),
        chart(i, limit1000, ...widest),
        chart(i, limit1000, ...widest, previous),
        chart(i, ['limit', '1'], ...widest),
        chart(
          i,
          limit1000,
          ['from', String(f.head.timestamp - 1000 * seconds), `from=head − 1000 ${interval}`],
          ['to', String(f.head.timestamp + seconds), `to=head + 1 ${interval}`],
          previous,
        ),
        chart(i, limit1000, ['from', String(f.head.timestamp + 1), 'from=head + 1 s'], previous),
      );
    }
  }
  const busiestChart = of('tokens', '/chart', f.busiest.address, '{address}=busiest');
  out.push(
    of('tokens', '/chart', MAX_ADDRESS, '{address}=unknown')(limit1000),
    busiestChart(['limit', '1001']),
    busiestChart(['interval', '2h']),
    busiestChart(['from', '10'], ['to', '10']),
    busiestChart(['fill', 'linear']),
    busiestChart(['to', '9007199254740992']),
  );

  // Trades, activity, holders: each token at every limit and cursor position.
  const perToken: [string, (address: string) => string, Extremes][] = [
    ['/trades', (address) => `trades:${address}`, chainExtremes],
    ['/activity', (address) => `activity:${address}:*`, chainExtremes],
    ['/holders', (address) => `holders:${address}`, amountExtremes],
  ];
  for (const [suffix, list, extremes] of perToken) {
    for (const token of tokenFixtures)
      out.push(
        ...keyset(of('tokens', suffix, token.address, tokenShown(token)), list(token.address), extremes),
      );
    const busiest = of('tokens', suffix, f.busiest.address, '{address}=busiest');
    out.push(
      of('tokens', suffix, MAX_ADDRESS, unknownShown)(limit100),
      busiest(limit1000),
      busiest(['cursor', minted('tokens.new', [1, 1]), 'cursor=of another list']),
    );
  }
  // Each kind, over the positions of the unfiltered list: a rare kind walks the token's events.
  for (const token of tokenFixtures) {
    const activity = of('tokens', '/activity', token.address, tokenShown(token));
    const points = positions(keys.get(`activity:${token.address}:*`), 100, chainExtremes).filter(([label]) =>
      ['page 2', 'middle', 'last page'].includes(label),
    );
    for (const kind of ['launch', 'trade', 'graduation', 'transfer', 'swap']) {
      const base: Param[] = [['kind', kind], limit100];
      const list = `activity:${token.address}:${kind}`;
      out.push(
        activity(...base),
        ...points.map(([label, key]) => activity(...base, cursor(list, key, `${label} of all events`))),
      );
    }
  }
  out.push(of('tokens', '/activity', f.busiest.address, '{address}=busiest')(['kind', 'mint']));

  // A creator's page and tokens, a wallet's holdings: every limit and cursor position, then unknown owners.
  const creator = f.creator.address;
  const wallet = f.wallet.address;
  const creatorShown = `{address}=creator with most tokens (${abbrev(creator)}, ${f.creator.tokens} tokens)`;
  out.push(
    of('creators', '', creator, creatorShown)(),
    of('creators', '', MAX_ADDRESS, unknownShown)(),
    of('creators', '', f.busiest.address, '{address}=a token, not a creator')(),
    of('creators', '', '0x123', '{address}=0x123')(),
    ...keyset(of('creators', '/tokens', creator, creatorShown), `creator.tokens:${creator}`, chainExtremes),
  );
  const unknownCreator = of('creators', '/tokens', MAX_ADDRESS, unknownShown);
  out.push(
    unknownCreator(limit100),
    unknownCreator(limit100, cursor(`creator.tokens:${MAX_ADDRESS}`, chainExtremes.max, 'key max')),
  );
  const walletShown = `{address}=wallet with most balances (${abbrev(wallet)}, ${f.wallet.balances} balances)`;
  out.push(
    ...keyset(of('wallets', '/holdings', wallet, walletShown), `holdings:${wallet}`, addressExtremes),
    of('wallets', '/holdings', MAX_ADDRESS, unknownShown)(limit100),
    of('wallets', '/holdings', f.busiest.address, '{address}=a token address')(limit100),
  );

  // The live stream, timed to its first event: a resume replays up to 1,000 blocks.
  const stream = at('GET /api/v1/stream', '/api/v1/stream', [], 'stream');
  const since = (back: number): Param => [
    'since',
    String(f.head.block - back),
    back === 0 ? 'since=head' : back < 0 ? `since=head + ${-back}` : `since=head − ${back}`,
  ];
  out.push(
    stream(),
    ...[0, 1, 10, 50, 99, 100, 500, 1000, 1001, -5].map((back) => stream(since(back))),
    ...[99, 1000].map((back) => stream(['token', f.busiest.address, 'token=busiest'], since(back))),
    stream(['token', f.newest.address, 'token=newest'], since(1000)),
    stream(['token', '0x123']),
    at('GET /api/v1/openapi.json', '/api/v1/openapi.json')(),
  );

  const routes = new Map<string, Candidate[]>();
  for (const candidate of out)
    routes.set(candidate.route, [...(routes.get(candidate.route) ?? []), candidate]);
  return routes;
}

/** Routes whose answers are their twin's (same handler, same parameters): timed on its slowest candidates. */
export const aliasRoutes: Record<string, string> = {
  'GET /api/v1/tokens/newest': 'GET /api/v1/tokens',
  'GET /api/v1/trending': 'GET /api/v1/tokens/trending',
};
