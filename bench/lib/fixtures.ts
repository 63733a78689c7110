import type { Sql } from 'postgres';

/** A route class of the benchmark: the one URL the main runs hammer, and a mix of several. */
export interface RouteClass {
  label: string;
  /** The URL `npm run bench` drives over and over. */
  path: string;
  /** URLs the main runs drive in turn instead of `path` alone (`path` first; each compared with the floor). */
  targets?: readonly string[];
  /**
   * URLs of the same class over several tokens, creators, wallets or searches (the first is
   * `path`), so that after the read model moves the misses fall on different cache keys.
   */
  mix: string[];
}

/** Reads a JSON answer (status 200) from the server the fixtures are taken from. */
export type JsonGet = <T>(pathAndQuery: string) => Promise<T>;

/** Address of the seed's token i (bench/lib/seed-sql.ts): 0x…i. */
export const tokenAddress = (index: number) => `0x${index.toString(16).padStart(40, '0')}`;

/** Tokens of the busy first thousand that every per-token mix holds, besides the fixtures. */
export const busyTokensMixed = [2, 20, 250, 777];

/** Token 1 is the busiest: 6 % of all trades, and every wallet of the seed holds it. */
export const busiestToken = tokenAddress(1);

/**
 * The route classes, with fixtures taken from the seed (bench/lib/seed-sql.ts): token 1 is
 * the busiest; token 440 is graduated, trades last on the pool and has bound metadata, so its
 * detail has every group. The mixes add the token whose `holders` count is the highest, tokens
 * of the busy first thousand and one of the long tail, their creators, the busiest token's top
 * holders, and searches by the symbol prefixes of the mixed tokens.
 */
export async function routeClasses(json: JsonGet, db: Sql, tokenCount: number): Promise<RouteClass[]> {
  const busy = busiestToken;
  const showcase = tokenAddress(440);
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const body: { next_cursor: string | null } = await json(
      `/api/v1/tokens?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    cursor = body.next_cursor;
  }
  const [mostHeld] = await db<{ address: string }[]>`
    select address from tokens order by holders desc, address limit 1`;
  const tokens = [
    ...new Set([
      busy,
      mostHeld?.address ?? tokenAddress(499),
      showcase,
      ...[...busyTokensMixed, Math.floor(tokenCount / 2) + 1].map(tokenAddress),
    ]),
  ];
  const details = await Promise.all(
    tokens.map((token) =>
      json<{ identity: { symbol: string }; creation: { creator: string } }>(`/api/v1/tokens/${token}`),
    ),
  );
  const creator = details[tokens.indexOf(showcase)]?.creation.creator as string;
  const creators = [creator, ...new Set(details.map((d) => d.creation.creator).filter((c) => c !== creator))];
  const holders = await json<{ items: { wallet: string }[] }>(
    `/api/v1/tokens/${busy}/holders?limit=${tokens.length}`,
  );
  const wallets = holders.items.map((item) => item.wallet);
  const wallet = wallets[0];
  // Symbols are three letters of the name's first word, two of the second, and the token's
  // number mod 1,000: five letters and the first digit match a few hundred tokens (pepmo1: 438).
  const searches = [
    'pepmo1',
    ...new Set(
      details
        .map((d) => d.identity.symbol.toLowerCase().slice(0, 6))
        .filter((prefix) => /^[a-z]{5}\d$/.test(prefix) && prefix !== 'pepmo1'),
    ),
  ];
  // The longest interval with 1,000 candles of the busiest token (1h on 20M trades, 5m on 2M).
  let interval = '1h';
  for (const candidate of ['1h', '15m', '5m', '1m']) {
    interval = candidate;
    const chart = await json<{ items: unknown[] }>(
      `/api/v1/tokens/${busy}/chart?interval=${candidate}&limit=1000`,
    );
    if (chart.items.length === 1000) break;
  }
  const perToken = (label: string, first: string, suffix: string): RouteClass => {
    const path = `/api/v1/tokens/${first}${suffix}`;
    return {
      label,
      path,
      mix: [...new Set([path, ...tokens.map((token) => `/api/v1/tokens/${token}${suffix}`)])],
    };
  };
  const single = (label: string, path: string): RouteClass => ({ label, path, mix: [path] });
  // The busiest token's holders at blocks drawn evenly from its trading history (it trades in
  // every block of the seed from block 5,000,000 on; seed-sql.ts), each read as often.
  const head = (await json<{ indexed_through_block: number }>(`/api/v1/tokens/${busy}`))
    .indexed_through_block;
  const atBlocks = Array.from(
    { length: 64 },
    (_, i) => 5_000_000 + Math.floor(((i * 40_503) % 64) * ((head - 5_000_000) / 64)),
  );
  const holdersAt = atBlocks.map((block) => `/api/v1/tokens/${busy}/holders?block=${block}`);
  return [
    single('tokens, page 1 (newest)', '/api/v1/tokens'),
    single('tokens, page 501 (cursor)', `/api/v1/tokens?cursor=${cursor}`),
    single('tokens?view=top', '/api/v1/tokens?view=top'),
    single('tokens?view=near', '/api/v1/tokens?view=near'),
    single('tokens?view=linked', '/api/v1/tokens?view=linked'),
    {
      label: 'tokens?search=pepmo1',
      path: '/api/v1/tokens?search=pepmo1',
      mix: searches.map((search) => `/api/v1/tokens?search=${search}`),
    },
    single('tokens/trending', '/api/v1/tokens/trending'),
    perToken('token detail', showcase, ''),
    perToken('pricing', showcase, '/pricing'),
    perToken(`chart ${interval} × 1,000`, busy, `/chart?interval=${interval}&limit=1000`),
    perToken('trades, busiest token', busy, '/trades'),
    perToken('activity, busiest token', busy, '/activity'),
    perToken('holders, busiest token', busy, '/holders'),
    {
      label: 'holders at a block, busiest',
      path: holdersAt[0] as string,
      targets: holdersAt,
      mix: holdersAt.slice(0, 8),
    },
    perToken('traders, busiest token', busy, '/traders'),
    {
      label: 'creator',
      path: `/api/v1/creators/${creator}`,
      mix: creators.map((address) => `/api/v1/creators/${address}`),
    },
    {
      label: 'creator tokens',
      path: `/api/v1/creators/${creator}/tokens`,
      mix: creators.map((address) => `/api/v1/creators/${address}/tokens`),
    },
    {
      label: 'wallet holdings',
      path: `/api/v1/wallets/${wallet}/holdings`,
      mix: wallets.map((address) => `/api/v1/wallets/${address}/holdings`),
    },
    {
      label: 'wallet pnl',
      path: `/api/v1/wallets/${wallet}/pnl`,
      mix: wallets.map((address) => `/api/v1/wallets/${address}/pnl`),
    },
  ];
}
