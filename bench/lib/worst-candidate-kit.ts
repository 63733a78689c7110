/**
 * The parts every candidate of `npm run bench:worst` is made of (bench/lib/worst-candidates.ts):
 * the request shape, keyset positions and cursors at them, and a search with its follow-up pages.
 */
import { type CursorValue, encodeCursor } from '../../server/api/cursor';
import { INT4_MAX, searchListName } from '../../server/api/cursor-keys';
import { TRENDING_SCORE_MAX } from '../../server/tokens/trending';
import { normalizeSearchText } from '../../shared/search-text';
import { type KeyPoints, MAX_ADDRESS, type TokenFixture, ZERO_ADDRESS } from './worst-fixtures';

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

export type Param = [name: string, value: string, shown?: string];

export const short = (value: string, max = 24) =>
  value.length > max ? `${value.slice(0, max - 1)}…` : value;
/** An address as its first and last hex digits (seeded addresses differ at the end). */
export const abbrev = (address: string) =>
  /^0x[0-9a-f]{40}$/.test(address) ? `${address.slice(0, 5)}…${address.slice(-4)}` : address;
export const showKey = (key: readonly CursorValue[]) =>
  `[${key.map((value) => (typeof value === 'string' ? (value.startsWith('0x') ? abbrev(value) : short(value, 14)) : String(value))).join(', ')}]`;

export function make(
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
export type Extremes = { max: CursorValue[]; min: CursorValue[] };

export const chainExtremes: Extremes = { max: [Number.MAX_SAFE_INTEGER, INT4_MAX], min: [0, 0] };
export const amountExtremes: Extremes = { max: ['9'.repeat(78), MAX_ADDRESS], min: ['0', ZERO_ADDRESS] };
export const progressExtremes: Extremes = { max: [10_000, MAX_ADDRESS], min: [0, ZERO_ADDRESS] };
export const trendingExtremes: Extremes = {
  max: [TRENDING_SCORE_MAX, MAX_ADDRESS],
  min: [Number.MIN_VALUE, ZERO_ADDRESS],
};
export const addressExtremes: Extremes = { max: [MAX_ADDRESS], min: [ZERO_ADDRESS] };
/** Search keys (rank, market cap, token): before every match, and after every match. */
export const searchStart: CursorValue[] = [0, '9'.repeat(78), MAX_ADDRESS];
export const searchEnd: CursorValue[] = [4, '0', ZERO_ADDRESS];

export function positions(points: KeyPoints | undefined, limit: number, extremes: Extremes) {
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
export function keysetCandidates(
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

/** A search at limit 100; after a 200, page 2 by its cursor and a cursor past every match. */
export function searchCandidate(
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

export const tokenShown = (token: TokenFixture) =>
  `{address}=${token.role} (${abbrev(token.address)}, ${token.trades.toLocaleString('en-US')} trades, ${token.holders.toLocaleString('en-US')} holders)`;
