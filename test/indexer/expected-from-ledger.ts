import type { Ledger } from '../../server/chain/simulator/ledger';
import { trendingScore } from '../../server/tokens/trending';
import { curvePrice, poolPrice, STABLE_NORMALIZATION } from '../../shared/chain/curve-math';
import { WAD } from '../../shared/units';

/**
 * Projections computed straight from the simulator's ledger (decoded by viem's generic ABI
 * decoder when the simulator ran), without any indexer code: what the index must contain.
 */
export interface ExpectedProjections {
  trades: string[];
  balances: Map<string, bigint>;
  candles: Map<
    string,
    { open: bigint; high: bigint; low: bigint; close: bigint; volume: bigint; trades: number }
  >;
  tokens: Map<
    string,
    {
      lifecycle: 'curve' | 'graduated';
      pool: string | null;
      currentPrice: bigint;
      marketCap: bigint;
      fdv: bigint;
      tradeCount: number;
      totalVolume: bigint;
      lastTradeAt: number | null;
      holders: number;
      volume24h: bigint;
      trades24h: number;
      traders24h: number;
      trendingScore: number;
      progressBps: number;
    }
  >;
  creators: Map<string, { launched: number; graduated: number; volume: bigint }>;
}

const INTERVALS = [60, 300, 900, 3600, 14400, 86400, 604800];
const ZERO = '0x0000000000000000000000000000000000000000';
const DEAD = '0x000000000000000000000000000000000000dead';

export function expectedFromLedger(ledger: Ledger, headTimestamp: number): ExpectedProjections {
  const stable = ledger.contracts.stable?.toLowerCase() ?? '';
  const special = new Set([
    ZERO,
    DEAD,
    ledger.contracts.graduator?.toLowerCase(),
    ledger.contracts.factory?.toLowerCase(),
  ]);
  const info = new Map<
    string,
    {
      creator: string;
      curve: string;
      supply: bigint;
      curveSupply: bigint;
      threshold: bigint;
      realTokenReserve: bigint;
      realReserve: bigint;
      pool: string | null;
      burned: bigint;
      price: bigint;
    }
  >();
  const poolToken = new Map<string, string>();
  const trades: { token: string; trader: string; ts: number; price: bigint; volume: bigint; row: string }[] =
    [];
  const balances = new Map<string, bigint>();

  for (const action of ledger.actions) {
    for (const log of action.logs) {
      const a = log.args as Record<string, string>;
      if (log.eventName === 'TokenLaunched') {
        info.set(a.token as string, {
          creator: a.creator as string,
          curve: a.curve as string,
          supply: BigInt(a.totalSupply as string),
          curveSupply: BigInt(a.realTokenReserve as string),
          threshold: BigInt(a.graduationThreshold as string),
          realTokenReserve: BigInt(a.realTokenReserve as string),
          realReserve: 0n,
          pool: null,
          burned: 0n,
          price: curvePrice(BigInt(a.virtualTokenReserve as string), BigInt(a.virtualReserve as string)),
        });
      }
    }
  }

  for (const action of ledger.actions) {
    for (const log of action.logs) {
      const a = log.args as Record<string, string | boolean>;
      const s = (key: string) => String(a[key]);
      if (log.eventName === 'Trade') {
        const token = info.get(s('token'));
        if (!token) continue;
        const price = curvePrice(BigInt(s('virtualTokenReserve')), BigInt(s('virtualReserve')));
        token.price = price;
        token.realTokenReserve = BigInt(s('realTokenReserve'));
        token.realReserve = BigInt(s('realReserve'));
        trades.push({
          token: s('token'),
          trader: s('trader'),
          ts: action.blockTimestamp,
          price,
          volume: BigInt(s('reserveAmount')),
          row: [
            action.blockNumber,
            log.logIndex,
            s('token'),
            s('trader'),
            a.isBuy ? 'buy' : 'sell',
            'curve',
            s('tokenAmount'),
            s('reserveAmount'),
            s('curveValue'),
            s('protocolFee'),
            s('creatorFee'),
            price,
          ].join('|'),
        });
      } else if (log.eventName === 'Graduated') {
        const token = info.get(s('token'));
        if (!token) continue;
        token.pool = s('pool');
        token.burned = BigInt(s('burnedTokenAmount'));
        poolToken.set(s('pool'), s('token'));
      } else if (log.eventName === 'Swap') {
        const tokenAddress = poolToken.get(log.address);
        const token = tokenAddress ? info.get(tokenAddress) : undefined;
        if (!tokenAddress || !token) continue;
        const tokenIsToken0 = BigInt(tokenAddress) < BigInt(stable);
        const tokenDelta = BigInt(s(tokenIsToken0 ? 'amount0' : 'amount1'));
        const stableDelta = BigInt(s(tokenIsToken0 ? 'amount1' : 'amount0'));
        const reserve = (stableDelta < 0n ? -stableDelta : stableDelta) * STABLE_NORMALIZATION;
        const price = poolPrice(BigInt(s('sqrtPriceX96')), tokenIsToken0);
        token.price = price;
        trades.push({
          token: tokenAddress,
          trader: s('recipient'),
          ts: action.blockTimestamp,
          price,
          volume: reserve,
          row: [
            action.blockNumber,
            log.logIndex,
            tokenAddress,
            s('recipient'),
            tokenDelta < 0n ? 'buy' : 'sell',
            'dex_v3',
            tokenDelta < 0n ? -tokenDelta : tokenDelta,
            reserve,
            reserve,
            0,
            0,
            price,
          ].join('|'),
        });
      } else if (log.eventName === 'Transfer' && info.has(log.address)) {
        const value = BigInt(s('value'));
        if (s('from') !== ZERO)
          balances.set(
            `${log.address}:${s('from')}`,
            (balances.get(`${log.address}:${s('from')}`) ?? 0n) - value,
          );
        balances.set(`${log.address}:${s('to')}`, (balances.get(`${log.address}:${s('to')}`) ?? 0n) + value);
      }
    }
  }
  for (const [key, value] of balances) if (value === 0n) balances.delete(key);

  const candles: ExpectedProjections['candles'] = new Map();
  for (const trade of trades) {
    for (const interval of INTERVALS) {
      const key = `${trade.token}:${interval}:${trade.ts - (trade.ts % interval)}`;
      const candle = candles.get(key);
      if (!candle)
        candles.set(key, {
          open: trade.price,
          high: trade.price,
          low: trade.price,
          close: trade.price,
          volume: trade.volume,
          trades: 1,
        });
      else {
        if (trade.price > candle.high) candle.high = trade.price;
        if (trade.price < candle.low) candle.low = trade.price;
        candle.close = trade.price;
        candle.volume += trade.volume;
        candle.trades += 1;
      }
    }
  }

  const tokens: ExpectedProjections['tokens'] = new Map();
  const creators: ExpectedProjections['creators'] = new Map();
  for (const [address, token] of info) {
    const mine = trades.filter((t) => t.token === address);
    const window = mine.filter((t) => t.ts > headTimestamp - 86_400 && t.ts <= headTimestamp);
    const windowVolume = window.reduce((sum, t) => sum + t.volume, 0n);
    const traders = new Set(window.map((t) => t.trader)).size;
    const graduated = token.pool !== null;
    const circulating = graduated ? token.supply - token.burned : token.curveSupply - token.realTokenReserve;
    let holders = 0;
    for (const [key, value] of balances) {
      const [tokenAddress, wallet] = key.split(':') as [string, string];
      if (
        tokenAddress === address &&
        value > 0n &&
        !special.has(wallet) &&
        wallet !== token.curve &&
        wallet !== token.pool
      )
        holders++;
    }
    const totalVolume = mine.reduce((sum, t) => sum + t.volume, 0n);
    const progress = (token.realReserve * 10_000n) / token.threshold;
    tokens.set(address, {
      lifecycle: graduated ? 'graduated' : 'curve',
      pool: token.pool,
      currentPrice: token.price,
      marketCap: (token.price * circulating) / WAD,
      fdv: (token.price * token.supply) / WAD,
      tradeCount: mine.length,
      totalVolume,
      lastTradeAt: mine.at(-1)?.ts ?? null,
      holders,
      volume24h: windowVolume,
      trades24h: window.length,
      traders24h: traders,
      trendingScore: trendingScore({ volume: windowVolume, trades: window.length, traders }),
      progressBps: graduated ? 10_000 : Number(progress > 10_000n ? 10_000n : progress),
    });
    const creator = creators.get(token.creator) ?? { launched: 0, graduated: 0, volume: 0n };
    creator.launched += 1;
    creator.graduated += graduated ? 1 : 0;
    creator.volume += totalVolume;
    creators.set(token.creator, creator);
  }
  return { trades: trades.map((t) => t.row), balances, candles, tokens, creators };
}
