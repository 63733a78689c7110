import { foldChain, WAD } from './chain-state';
import type { ChainView } from './chain-view';
import { CHART_INTERVALS, createMeasures } from './measures';

/**
 * What the indexer's tables must hold at the view's head (trades, balances, candles, token
 * figures, creators), in the tables' own units and keys, from the same fold and measures as every
 * read answer: the indexer's tests compare rows with it before any API code is involved.
 */
export function expectedTables(view: ChainView) {
  const ledger = foldChain(view);
  const measures = createMeasures(view, ledger, new Map());
  const all = [...ledger.tokens.values()];

  const trades = all
    .flatMap((token) => token.trades)
    .sort((a, b) => a.log.blockNumber - b.log.blockNumber || a.log.logIndex - b.log.logIndex)
    .map((t) =>
      [
        t.log.blockNumber,
        t.log.logIndex,
        t.token,
        t.trader,
        t.side,
        t.source,
        t.tokenAmount,
        t.reserveAmount,
        t.curveValue,
        t.protocolFee,
        t.creatorFee,
        t.price,
      ].join('|'),
    );

  /** `token:wallet` → balance; a zero balance has no row. */
  const balances = new Map<string, bigint>();
  for (const [token, held] of ledger.balances)
    for (const [wallet, balance] of held) if (balance !== 0n) balances.set(`${token}:${wallet}`, balance);

  /** `token:interval:bucket start` → candle. */
  const candles = new Map<string, Omit<ReturnType<typeof measures.candlesOf>[number], 'time'>>();
  for (const token of all)
    for (const seconds of Object.values(CHART_INTERVALS))
      for (const { time, ...candle } of measures.candlesOf(token, seconds))
        candles.set(`${token.address}:${seconds}:${time}`, candle);

  const tokens = new Map(
    all.map((token) => {
      const window = measures.windowOf(token);
      return [
        token.address,
        {
          lifecycle: measures.graduated(token) ? 'graduated' : 'curve',
          pool: token.pool,
          currentPrice: token.price,
          marketCap: measures.marketCap(token),
          fdv: (token.price * token.totalSupply) / WAD,
          tradeCount: token.trades.length,
          totalVolume: token.trades.reduce((sum, t) => sum + t.reserveAmount, 0n),
          lastTradeAt: token.trades.at(-1)?.log.blockTimestamp ?? null,
          holders: measures.holdersOf(token).length,
          volume24h: window.volume,
          trades24h: window.trades,
          traders24h: window.traders,
          trendingScore: window.score,
          progressBps: measures.progress(token),
        },
      ];
    }),
  );

  const creators = new Map<string, { launched: number; graduated: number; volume: bigint }>();
  for (const token of all) {
    const creator = creators.get(token.creator) ?? { launched: 0, graduated: 0, volume: 0n };
    creator.launched += 1;
    creator.graduated += measures.graduated(token) ? 1 : 0;
    creator.volume += tokens.get(token.address)?.totalVolume ?? 0n;
    creators.set(token.creator, creator);
  }

  return { trades, balances, candles, tokens, creators };
}
