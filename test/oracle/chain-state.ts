import { curvePrice, poolPrice } from '../../shared/chain/curve-math';
import type { ChainView, ViewLog } from './chain-view';

/**
 * The oracle's ledger: tokens, their trades and events, and balances, folded from the canonical
 * chain's logs (chain-view.ts) with no code shared with the indexer's projection.
 */

export const WAD = 10n ** 18n;
export const ZERO = '0x0000000000000000000000000000000000000000';
export const DEAD = '0x000000000000000000000000000000000000dead';

export interface Trade {
  token: string;
  trader: string;
  side: 'buy' | 'sell';
  source: 'curve' | 'dex_v3';
  tokenAmount: bigint;
  reserveAmount: bigint;
  curveValue: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  price: bigint;
  log: ViewLog;
}

export interface Token {
  address: string;
  name: string;
  symbol: string;
  creator: string;
  curve: string;
  totalSupply: bigint;
  curveSupply: bigint;
  launch: ViewLog;
  virtualTokenReserve: bigint;
  virtualReserve: bigint;
  realTokenReserve: bigint;
  realReserve: bigint;
  threshold: bigint;
  price: bigint;
  pool: string | null;
  graduation: ViewLog | null;
  burned: bigint;
  trades: Trade[];
  events: { kind: string; log: ViewLog; data: Record<string, string> }[];
}

export const s = (log: ViewLog, key: string) => String(log.args[key]);
export const big = (log: ViewLog, key: string) => BigInt(s(log, key));

export interface ChainLedger {
  tokens: Map<string, Token>;
  /** token → wallet → balance */
  balances: Map<string, Map<string, bigint>>;
}

/** Folds every launchpad, Transfer and Swap log of `view` into tokens and balances. */
export function foldChain(view: ChainView): ChainLedger {
  const tokens = new Map<string, Token>();
  const poolToken = new Map<string, string>();
  const balances = new Map<string, Map<string, bigint>>();

  for (const log of view.logs) {
    if (log.eventName === 'TokenLaunched' && log.address === view.factory) {
      const address = s(log, 'token');
      tokens.set(address, {
        address,
        name: s(log, 'name'),
        symbol: s(log, 'symbol'),
        creator: s(log, 'creator'),
        curve: s(log, 'curve'),
        totalSupply: big(log, 'totalSupply'),
        curveSupply: big(log, 'realTokenReserve'),
        launch: log,
        virtualTokenReserve: big(log, 'virtualTokenReserve'),
        virtualReserve: big(log, 'virtualReserve'),
        realTokenReserve: big(log, 'realTokenReserve'),
        realReserve: 0n,
        threshold: big(log, 'graduationThreshold'),
        price: curvePrice(big(log, 'virtualTokenReserve'), big(log, 'virtualReserve')),
        pool: null,
        graduation: null,
        burned: 0n,
        trades: [],
        events: [],
      });
    }
  }
  const dataOf = (log: ViewLog, extra: Record<string, string> = {}) => ({
    ...extra,
    ...Object.fromEntries(Object.entries(log.args).map(([k, v]) => [k, String(v)])),
  });

  for (const log of view.logs) {
    if (log.address === view.factory) {
      const token = tokens.get(s(log, 'token'));
      if (!token) continue;
      if (log.eventName === 'TokenLaunched') token.events.push({ kind: 'launch', log, data: dataOf(log) });
      if (log.eventName === 'Trade') {
        token.virtualTokenReserve = big(log, 'virtualTokenReserve');
        token.virtualReserve = big(log, 'virtualReserve');
        token.realTokenReserve = big(log, 'realTokenReserve');
        token.realReserve = big(log, 'realReserve');
        token.price = curvePrice(token.virtualTokenReserve, token.virtualReserve);
        token.trades.push({
          token: token.address,
          trader: s(log, 'trader'),
          side: log.args.isBuy === true ? 'buy' : 'sell',
          source: 'curve',
          tokenAmount: big(log, 'tokenAmount'),
          reserveAmount: big(log, 'reserveAmount'),
          curveValue: big(log, 'curveValue'),
          protocolFee: big(log, 'protocolFee'),
          creatorFee: big(log, 'creatorFee'),
          price: token.price,
          log,
        });
        token.events.push({ kind: 'trade', log, data: dataOf(log) });
      }
      if (log.eventName === 'Graduated') {
        token.pool = s(log, 'pool');
        token.graduation = log;
        token.burned = big(log, 'burnedTokenAmount');
        poolToken.set(token.pool, token.address);
        token.events.push({ kind: 'graduation', log, data: dataOf(log) });
      }
    } else if (log.eventName === 'Transfer') {
      const token = tokens.get(log.address);
      if (!token) continue;
      const value = big(log, 'value');
      const held = balances.get(token.address) ?? new Map<string, bigint>();
      balances.set(token.address, held);
      const from = s(log, 'from');
      const to = s(log, 'to');
      if (from !== ZERO) held.set(from, (held.get(from) ?? 0n) - value);
      held.set(to, (held.get(to) ?? 0n) + value);
      token.events.push({ kind: 'transfer', log, data: dataOf(log, { token: token.address }) });
    } else if (log.eventName === 'Swap') {
      const address = poolToken.get(log.address);
      const token = address ? tokens.get(address) : undefined;
      if (!token) continue;
      const tokenIsToken0 = BigInt(token.address) < BigInt(view.stable);
      const tokenDelta = big(log, tokenIsToken0 ? 'amount0' : 'amount1');
      const stableDelta = big(log, tokenIsToken0 ? 'amount1' : 'amount0');
      const reserve = (stableDelta < 0n ? -stableDelta : stableDelta) * 10n ** 12n;
      token.price = poolPrice(big(log, 'sqrtPriceX96'), tokenIsToken0);
      token.trades.push({
        token: token.address,
        trader: s(log, 'recipient'),
        side: tokenDelta < 0n ? 'buy' : 'sell',
        source: 'dex_v3',
        tokenAmount: tokenDelta < 0n ? -tokenDelta : tokenDelta,
        reserveAmount: reserve,
        curveValue: reserve,
        protocolFee: 0n,
        creatorFee: 0n,
        price: token.price,
        log,
      });
      token.events.push({ kind: 'swap', log, data: dataOf(log, { pool: log.address }) });
    }
  }
  return { tokens, balances };
}
