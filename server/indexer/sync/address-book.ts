import { sql } from 'drizzle-orm';
import { textArray } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';

/**
 * Which emitters' logs the indexer keeps: launched tokens (their Transfers) and the pools of
 * graduated ones (their Swaps), as stored in `tokens`.
 *
 * While there are few, the book holds them all and ranges name them in eth_getLogs. Past
 * {@link LISTED_LIMIT}, ranges ask by topic and the book looks up the emitters a range holds:
 * loading a million addresses at start took seconds and hundreds of MB, where a range has a few
 * hundred distinct emitters. Lookups go through bounded caches of hits and misses (on a real
 * chain most Transfer emitters are other ERC-20s, asked about again and again).
 */
export interface AddressBook {
  /** Every known token and pool (pool → token), while few enough to name in a request. */
  listed(): { tokens: ReadonlySet<string>; pools: ReadonlyMap<string, string> } | undefined;
  /** Which of `addresses` are stored tokens. */
  tokensAmong(addresses: readonly string[]): Promise<Set<string>>;
  /** The token of each of `addresses` that is a stored pool. */
  poolsAmong(addresses: readonly string[]): Promise<Map<string, string>>;
}

/** Above this many tokens, ranges ask by topic and look emitters up (see AddressBook). */
export const LISTED_LIMIT = 500;
const CACHE_LIMIT = 100_000;

/** A map that forgets its oldest entries beyond `limit`. */
class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly limit: number) {
    super();
  }
  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    if (this.size > this.limit) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return this;
  }
}

/** The address book over the database; the indexer tells it what each committed write added. */
export function createAddressBook(db: Database, listedLimit = LISTED_LIMIT) {
  let listed: { tokens: Set<string>; pools: Map<string, string> } | undefined;
  let loaded = false;
  // Token → true / false; pool → its token, or null when the address is no pool.
  const tokenCache = new BoundedMap<string, boolean>(CACHE_LIMIT);
  const poolCache = new BoundedMap<string, string | null>(CACHE_LIMIT);

  async function ensureLoaded() {
    if (loaded) return;
    const rows = await selectRows<{ address: string; pool_address: string | null }>(
      db,
      sql`select address, pool_address from tokens limit ${listedLimit + 1}`,
    );
    listed = undefined;
    if (rows.length <= listedLimit) {
      listed = { tokens: new Set(), pools: new Map() };
      for (const row of rows) {
        listed.tokens.add(row.address);
        if (row.pool_address) listed.pools.set(row.pool_address, row.address);
      }
    }
    loaded = true;
  }

  const book = {
    /** Reads the book's mode (and the few addresses) before the first range. */
    load: ensureLoaded,
    listed() {
      return listed;
    },
    async tokensAmong(addresses: readonly string[]): Promise<Set<string>> {
      await ensureLoaded();
      if (listed) {
        const { tokens } = listed;
        return new Set(addresses.filter((a) => tokens.has(a)));
      }
      const unknown = [...new Set(addresses)].filter((a) => !tokenCache.has(a));
      if (unknown.length > 0) {
        const found = await selectRows<{ address: string }>(
          db,
          sql`select address from tokens where address = any(${textArray(unknown)})`,
        );
        for (const a of unknown) tokenCache.set(a, false);
        for (const { address } of found) tokenCache.set(address, true);
      }
      return new Set(addresses.filter((a) => tokenCache.get(a) === true));
    },
    async poolsAmong(addresses: readonly string[]): Promise<Map<string, string>> {
      await ensureLoaded();
      const result = new Map<string, string>();
      if (listed) {
        for (const a of addresses) {
          const token = listed.pools.get(a);
          if (token) result.set(a, token);
        }
        return result;
      }
      const unknown = [...new Set(addresses)].filter((a) => !poolCache.has(a));
      if (unknown.length > 0) {
        const found = await selectRows<{ address: string; pool_address: string }>(
          db,
          sql`select address, pool_address from tokens where pool_address = any(${textArray(unknown)})`,
        );
        for (const a of unknown) poolCache.set(a, null);
        for (const row of found) poolCache.set(row.pool_address, row.address);
      }
      for (const a of addresses) {
        const token = poolCache.get(a);
        if (token) result.set(a, token);
      }
      return result;
    },
    /** A committed write launched `tokens` and graduated into `pools`. */
    learn(tokens: readonly string[], pools: readonly { pool: string; token: string }[]) {
      for (const token of tokens) {
        listed?.tokens.add(token);
        tokenCache.set(token, true);
      }
      for (const { pool, token } of pools) {
        listed?.pools.set(pool, token);
        poolCache.set(pool, token);
      }
      if (listed && listed.tokens.size > listedLimit) listed = undefined;
    },
    /** Forgets everything (after a rollback, or a failed write whose plans ran ahead). */
    reset() {
      loaded = false;
      listed = undefined;
      tokenCache.clear();
      poolCache.clear();
    },
  };
  return book satisfies AddressBook;
}

/** A fixed book (tests, one-off fetches): these tokens and pools, named in every request. */
export function fixedAddressBook(
  tokens: ReadonlySet<string>,
  pools: ReadonlyMap<string, string> = new Map(),
): AddressBook {
  return {
    listed: () => ({ tokens, pools }),
    tokensAmong: async (addresses) => new Set(addresses.filter((a) => tokens.has(a))),
    poolsAmong: async (addresses) =>
      new Map(addresses.flatMap((a) => (pools.has(a) ? [[a, pools.get(a) as string] as const] : []))),
  };
}
