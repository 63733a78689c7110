import { decodeLog, type RawLog, topics } from '../decode/events';
import type { RpcClient } from '../rpc/client';
import type { AddressBook } from './address-book';
import { hex } from './headers';

/**
 * Which logs a range asks for and keeps: the factory's launches and graduations first (they name
 * the tokens and pools), then one filter for the activity of those emitters. The tokens of the
 * pools whose Swaps are kept are resolved here and nowhere else (RangeData.pools, read through
 * range-algebra's tokenOfPool).
 */

export interface AddressSets {
  factory: string;
  /** Tokens and pools stored before the first range of a feed. */
  book: AddressBook;
  /** Tokens launched and pools (pool → token) created since, by the feed's earlier ranges. */
  tokens: ReadonlySet<string>;
  pools: ReadonlyMap<string, string>;
}

/** Above this many addresses, filter by topic only and keep the logs of known addresses. */
const ADDRESS_FILTER_LIMIT = 500;

/**
 * The factory's launches and graduations in [from, to]: they name the tokens and pools whose
 * logs the range must also fetch. Few and quick, so later ranges wait only for these. Read
 * whole, past the answer-size limit: every later range's address sets build on them, and they
 * are a small share of any range's logs (one launch brings hundreds of trades and transfers).
 */
export async function fetchFactoryLogs(rpc: RpcClient, from: number, to: number, factory: string) {
  const whole = { maxResponseBytes: Number.POSITIVE_INFINITY };
  const logs = await rpc.request<RawLog[]>(
    'eth_getLogs',
    [
      {
        fromBlock: hex(from),
        toBlock: hex(to),
        address: factory,
        topics: [[topics.launch, topics.graduation]],
      },
    ],
    whole,
  );
  return logs.filter((log) => !log.removed);
}

/**
 * The address sets after a range whose factory logs are `factoryLogs`: the same sets when the
 * range launched and graduated nothing.
 */
export function extendAddressSets(sets: AddressSets, factoryLogs: readonly RawLog[]): AddressSets {
  const launched: string[] = [];
  const graduated: [pool: string, token: string][] = [];
  for (const log of factoryLogs) {
    const event = decodeLog(log);
    if (event?.type === 'launch') launched.push(event.token);
    else if (event?.type === 'graduation') graduated.push([event.pool, event.token]);
  }
  if (launched.length === 0 && graduated.length === 0) return sets;
  return {
    ...sets,
    tokens: new Set([...sets.tokens, ...launched]),
    pools: new Map([...sets.pools, ...graduated]),
  };
}

/** The launchpad's activity: Trades of the factory, Transfers of its tokens, Swaps of their pools. */
const ACTIVITY_TOPICS = [topics.trade, topics.transfer, topics.swap];

/** What a range asks the node for besides the factory's launches and graduations, and what it keeps. */
export interface ActivityFilter {
  /** The eth_getLogs filter, without the block range. */
  filter: { address?: string[]; topics: string[][] };
  /**
   * The logs of known emitters among `logs`: Trades of the factory, Transfers of known tokens,
   * Swaps of known pools (emitters the book does not list are looked up in the database).
   */
  keep(logs: RawLog[]): Promise<RawLog[]>;
  /** The token of each pool whose Swaps were kept so far. */
  pools: ReadonlyMap<string, string>;
}

/**
 * One filter for all the activity of a range: a node scans the range's blocks once per request
 * and builds each answer whole before its first byte, so three requests (Trades, Transfers,
 * Swaps) meant three scans and a first part that waited for the slowest whole answer. Emitters
 * are named while the book lists them all and they fit a request; otherwise the range asks by
 * topic and keeps the logs of emitters it knows or finds stored.
 */
export function activityFilter(sets: AddressSets): ActivityFilter {
  const listed = sets.book.listed();
  const tokens = listed ? new Set([...listed.tokens, ...sets.tokens]) : new Set(sets.tokens);
  const poolTokens = new Map([...(listed?.pools ?? []), ...sets.pools]);
  const notTokens = new Set<string>();
  const notPools = new Set<string>();
  const pools = new Map<string, string>();
  const byName = listed !== undefined && 1 + tokens.size + poolTokens.size <= ADDRESS_FILTER_LIMIT;
  const filter = byName
    ? { address: [sets.factory, ...tokens, ...poolTokens.keys()], topics: [ACTIVITY_TOPICS] }
    : { topics: [ACTIVITY_TOPICS] };

  /** Looks up the emitters of Transfers and Swaps neither known nor ruled out: each once a range. */
  async function lookUpStrangers(logs: readonly RawLog[]) {
    const tokenQuestions = new Set<string>();
    const poolQuestions = new Set<string>();
    for (const log of logs) {
      const address = log.address.toLowerCase();
      const topic0 = log.topics[0];
      if (topic0 === topics.transfer && !tokens.has(address) && !notTokens.has(address))
        tokenQuestions.add(address);
      else if (topic0 === topics.swap && !poolTokens.has(address) && !notPools.has(address))
        poolQuestions.add(address);
    }
    const [foundTokens, foundPools] = await Promise.all([
      tokenQuestions.size > 0 ? sets.book.tokensAmong([...tokenQuestions]) : new Set<string>(),
      poolQuestions.size > 0 ? sets.book.poolsAmong([...poolQuestions]) : new Map<string, string>(),
    ]);
    for (const address of tokenQuestions) (foundTokens.has(address) ? tokens : notTokens).add(address);
    for (const address of poolQuestions) {
      const token = foundPools.get(address);
      if (token) poolTokens.set(address, token);
      else notPools.add(address);
    }
  }

  return {
    filter,
    pools,
    async keep(logs) {
      if (!listed) await lookUpStrangers(logs);
      return logs.filter((log) => {
        const address = log.address.toLowerCase();
        switch (log.topics[0]) {
          case topics.trade:
            return address === sets.factory;
          case topics.transfer:
            return tokens.has(address);
          case topics.swap: {
            const token = poolTokens.get(address);
            if (token) pools.set(address, token);
            return token !== undefined;
          }
          default:
            return false;
        }
      });
    },
  };
}
