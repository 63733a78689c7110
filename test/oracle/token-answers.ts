import { type ChainLedger, s, type Token, WAD } from './chain-state';
import type { ChainView } from './chain-view';
import {
  type Binding,
  CHART_INTERVALS,
  type ChartIntervalName,
  candleJson,
  type Json,
  type Measures,
} from './measures';
import type { buildTradersOracle } from './traders';

/** A chart's window and fill, as the route's query parameters give them. */
export interface ChartOptions {
  limit?: number;
  from?: number;
  to?: number;
  fill?: 'previous';
}

/** The oracle's answers about one token: its trades, activity, holders, detail, pricing and chart. */
export function tokenAnswers(
  view: ChainView,
  { tokens, balances }: ChainLedger,
  measures: Measures,
  context: {
    excluded: ReadonlySet<string>;
    bindings: ReadonlyMap<string, Binding>;
    traders: ReturnType<typeof buildTradersOracle>;
  },
) {
  const { excluded, bindings, traders } = context;

  /**
   * `fill=previous`: every bucket slot of the window — the last `limit` slots up to the bucket
   * of the indexed head (or of `to` − 1), none before `from` — holding its candle, or else a
   * flat candle at the last close before it (from any earlier candle, in range or not); slots
   * before the token's first trade are left out.
   */
  const filledCandles = (token: Token, seconds: number, options: ChartOptions): Json[] => {
    const limit = options.limit ?? 168;
    const from = options.from ?? 0;
    const last = Math.min((options.to ?? Number.MAX_SAFE_INTEGER) - 1, measures.headTs);
    const end = last - (last % seconds);
    const candles = measures.candlesOf(token, seconds).filter((c) => c.time <= end);
    const items: Json[] = [];
    for (
      let time = Math.max(end - (limit - 1) * seconds, Math.ceil(from / seconds) * seconds);
      time <= end;
      time += seconds
    ) {
      const own = candles.find((c) => c.time === time);
      const previous = candles.filter((c) => c.time < time).at(-1);
      const c =
        own ??
        (previous && {
          ...previous,
          time,
          open: previous.close,
          high: previous.close,
          low: previous.close,
          volume: 0n,
          trades: 0,
        });
      if (c) items.push(candleJson({ ...c, time }));
    }
    return items;
  };

  /** The most recent `limit` buckets whose start lies in [from, to), oldest first. */
  const windowCandles = (token: Token, seconds: number, options: ChartOptions): Json[] => {
    const from = options.from ?? 0;
    const to = options.to ?? Number.MAX_SAFE_INTEGER;
    return measures
      .candlesOf(token, seconds)
      .filter((c) => c.time >= from && c.time < to)
      .slice(-(options.limit ?? 168))
      .map(candleJson);
  };

  return {
    trades(address: string): Json[] {
      const token = tokens.get(address);
      return token ? [...token.trades].reverse().map(measures.tradeItem) : [];
    },

    activity(address: string, kind?: string): Json[] {
      const token = tokens.get(address);
      if (!token) return [];
      return token.events
        .filter((e) => kind === undefined || e.kind === kind)
        .sort((a, b) => b.log.blockNumber - a.log.blockNumber || b.log.logIndex - a.log.logIndex)
        .map((e) => ({
          kind: e.kind,
          block_number: e.log.blockNumber,
          block_timestamp: e.log.blockTimestamp,
          block_hash: e.log.blockHash,
          transaction_hash: e.log.transactionHash,
          transaction_index: e.log.transactionIndex,
          log_index: e.log.logIndex,
          data: e.data,
        }));
    },

    holders(address: string): Json[] {
      const token = tokens.get(address);
      if (!token) return [];
      return measures.holdersOf(token).map(([wallet, balance]) => ({
        wallet,
        balance: String(balance),
        share_bps: Number((balance * 10_000n) / token.totalSupply),
      }));
    },

    detail(address: string): Json | undefined {
      const token = tokens.get(address);
      if (!token) return undefined;
      const w = measures.windowOf(token);
      const binding = bindings.get(address);
      const g = token.graduation;
      return {
        indexed_through_block: view.head.number,
        identity: {
          address,
          name: token.name,
          symbol: token.symbol,
          decimals: 18,
          total_supply: String(token.totalSupply),
        },
        metadata: binding
          ? {
              description: binding.description,
              image_url: `/objects/${binding.imageKey}`,
              website_url: binding.websiteUrl,
              x_url: binding.xUrl,
              telegram_url: binding.telegramUrl,
              discord_url: binding.discordUrl,
              draft_id: binding.draftId,
            }
          : null,
        creation: {
          creator: token.creator,
          block_number: token.launch.blockNumber,
          block_timestamp: token.launch.blockTimestamp,
          transaction_hash: token.launch.transactionHash,
          transaction_index: token.launch.transactionIndex,
          log_index: token.launch.logIndex,
        },
        curve: {
          lifecycle: measures.graduated(token) ? 'graduated' : 'curve',
          virtual_token_reserve: String(token.virtualTokenReserve),
          virtual_reserve: String(token.virtualReserve),
          real_token_reserve: String(token.realTokenReserve),
          real_reserve: String(token.realReserve),
          graduation_threshold: String(token.threshold),
          progress_bps: measures.progress(token),
        },
        metrics: {
          current_price: String(token.price),
          price_change_24h_bps: measures.priceChange(token),
          market_cap: String(measures.marketCap(token)),
          fully_diluted_value: String((token.price * token.totalSupply) / WAD),
          volume_24h: String(w.volume),
          trades_24h: w.trades,
          traders_24h: w.traders,
          holders: measures.holdersOf(token).length,
          last_trade_at: token.trades.at(-1)?.log.blockTimestamp ?? null,
        },
        ...(g
          ? {
              graduation: {
                pool_address: s(g, 'pool'),
                block_number: g.blockNumber,
                block_timestamp: g.blockTimestamp,
                transaction_hash: g.transactionHash,
                token_amount: s(g, 'tokenAmount'),
                reserve_amount: s(g, 'reserveAmount'),
              },
            }
          : {}),
        concentration: measures.concentrationOf(token),
        risk: traders.risk(address, token.totalSupply, (wallet) => balances.get(address)?.get(wallet) ?? 0n),
        excluded: excluded.has(address),
      };
    },

    pricing(address: string): Json | undefined {
      const token = tokens.get(address);
      if (!token) return undefined;
      return {
        token_address: address,
        current_price: String(token.price),
        fully_diluted_value: String((token.price * token.totalSupply) / WAD),
        source:
          measures.graduated(token) && token.trades.at(-1)?.source === 'dex_v3'
            ? 'indexed_v3_market'
            : 'indexed_v3_curve',
        indexed_through_block: view.head.number,
      };
    },

    /** `/tokens/{address}/chart`, with `fill=previous` or without. */
    chart(address: string, interval: ChartIntervalName, options: ChartOptions = {}): Json | undefined {
      const token = tokens.get(address);
      if (!token) return undefined;
      const items =
        options.fill === 'previous'
          ? filledCandles(token, CHART_INTERVALS[interval], options)
          : windowCandles(token, CHART_INTERVALS[interval], options);
      return { token_address: address, interval, indexed_through_block: view.head.number, items };
    },
  };
}
