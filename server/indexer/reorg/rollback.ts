import { sql } from 'drizzle-orm';
import { textArray } from '../../db/bulk';
import { withCheckpointLock } from '../../db/checkpoint';
import { type Database, selectRows } from '../../db/client';
import { bumpReadVersion } from '../../db/read-version';
import { CHECKPOINT_ID, candleIntervals } from '../../db/schema';
import type { ProjectionContext } from '../project/fold';
import { refreshWindowMetrics } from '../project/metrics';
import { BURN_ADDRESS, balanceKind, ZERO_ADDRESS } from '../project/state';

export interface RollbackResult {
  ancestor: number;
  removedBlocks: number;
  removedTokens: number;
  affectedTokens: number;
}

const intervalValues = sql.raw(
  Object.values(candleIntervals)
    .map((seconds) => `(${seconds})`)
    .join(', '),
);

/**
 * Rolls every chain-derived table back to block `ancestor`, in one transaction.
 *
 * Log-derived rows above the ancestor are deleted. Aggregates are repaired from what remains:
 * balances by reversing the removed transfers (balances are sums of transfers), candles by
 * rebuilding the affected buckets from the surviving trades, token state and metrics from the
 * latest surviving event and trade, creators from their tokens. Tokens launched above the
 * ancestor disappear with everything that refers to them. The result equals an index built from
 * scratch up to the ancestor (tested against exactly that).
 */
export async function rollbackTo(
  db: Database,
  ancestor: number,
  context: ProjectionContext,
): Promise<RollbackResult> {
  return withCheckpointLock(db, async (t, checkpoint) => {
    if (!checkpoint || checkpoint.indexedThroughBlock <= ancestor) {
      return { ancestor, removedBlocks: 0, removedTokens: 0, affectedTokens: 0 };
    }
    const [ancestorBlock] = await selectRows<{ hash: string; timestamp: string | number }>(
      t,
      sql`select hash, timestamp from recent_blocks where number = ${ancestor}`,
    );
    if (!ancestorBlock)
      throw new Error(`block ${ancestor} is not among the recent blocks; cannot roll back to it`);

    const removedTokens = (
      await selectRows<{ address: string }>(
        t,
        sql`select address from tokens where created_block > ${ancestor}`,
      )
    ).map((r) => r.address);
    const affected = (
      await selectRows<{ token_address: string }>(
        t,
        sql`select distinct token_address from chain_events where block_number > ${ancestor} and not (token_address = any(${textArray(removedTokens)}))`,
      )
    ).map((r) => r.token_address);
    const creators = (
      await selectRows<{ creator: string }>(
        t,
        sql`select distinct creator from tokens where address = any(${textArray(affected)}) or address = any(${textArray(removedTokens)})`,
      )
    ).map((r) => r.creator);

    // Balances: undo the removed transfers of surviving tokens.
    await t.execute(sql`
      insert into balances (token_address, wallet, balance, kind)
      select token_address, wallet, -sum(delta), 0 from (
        select token_address, data->>'to' as wallet, (data->>'value')::numeric as delta
          from chain_events where block_number > ${ancestor} and kind = 'transfer' and token_address = any(${textArray(affected)})
        union all
        select token_address, data->>'from', -(data->>'value')::numeric
          from chain_events where block_number > ${ancestor} and kind = 'transfer' and token_address = any(${textArray(affected)})
           and data->>'from' <> ${ZERO_ADDRESS}
      ) d group by token_address, wallet
      on conflict (token_address, wallet) do update set balance = balances.balance + excluded.balance`);
    await t.execute(
      sql`delete from balances where balance = 0 and token_address = any(${textArray(affected)})`,
    );

    // Candles: forget every bucket from the first removed trade on, then rebuild them.
    const firstRemoved = await selectRows<{ token_address: string; first_ts: string | number }>(
      t,
      sql`select token_address, min(block_timestamp) as first_ts from trades where block_number > ${ancestor} and token_address = any(${textArray(affected)}) group by token_address`,
    );
    const since = firstRemoved.map((r) => ({ token_address: r.token_address, first_ts: Number(r.first_ts) }));

    await t.execute(sql`delete from trades where block_number > ${ancestor}`);
    await t.execute(sql`delete from chain_events where block_number > ${ancestor}`);
    if (removedTokens.length > 0) {
      await t.execute(sql`delete from balances where token_address = any(${textArray(removedTokens)})`);
      await t.execute(sql`delete from candles where token_address = any(${textArray(removedTokens)})`);
      await t.execute(
        sql`delete from token_search_terms where token_address = any(${textArray(removedTokens)})`,
      );
      await t.execute(sql`delete from tokens where address = any(${textArray(removedTokens)})`);
    }
    if (since.length > 0) {
      const sinceJson = JSON.stringify(since);
      await t.execute(sql`
        delete from candles c using json_to_recordset(${sinceJson}::json) as x(token_address text, first_ts bigint)
         where c.token_address = x.token_address and c.bucket_start >= x.first_ts - x.first_ts % c.interval_seconds`);
      await t.execute(sql`
        insert into candles (token_address, interval_seconds, bucket_start, open, high, low, close, volume, trades, last_block_number, last_log_index)
        select tr.token_address, iv.seconds, tr.block_timestamp - tr.block_timestamp % iv.seconds,
               (array_agg(tr.price order by tr.block_number, tr.log_index))[1],
               max(tr.price), min(tr.price),
               (array_agg(tr.price order by tr.block_number desc, tr.log_index desc))[1],
               sum(tr.reserve_amount), count(*),
               (array_agg(tr.block_number order by tr.block_number desc, tr.log_index desc))[1],
               (array_agg(tr.log_index order by tr.block_number desc, tr.log_index desc))[1]
          from json_to_recordset(${sinceJson}::json) as x(token_address text, first_ts bigint)
          cross join (values ${intervalValues}) as iv(seconds)
          join trades tr on tr.token_address = x.token_address and tr.block_timestamp >= x.first_ts - x.first_ts % iv.seconds
         group by tr.token_address, iv.seconds, tr.block_timestamp - tr.block_timestamp % iv.seconds`);
    }

    if (affected.length > 0) {
      // Curve state after the latest surviving curve event (a trade, or the launch itself).
      await t.execute(sql`
        update tokens t set
          virtual_token_reserve = (e.data->>'virtualTokenReserve')::numeric,
          virtual_reserve = (e.data->>'virtualReserve')::numeric,
          real_token_reserve = (e.data->>'realTokenReserve')::numeric,
          real_reserve = coalesce((e.data->>'realReserve')::numeric, 0)
        from (select distinct on (token_address) token_address, data from chain_events
               where kind in ('launch', 'trade') and token_address = any(${textArray(affected)})
               order by token_address, block_number desc, log_index desc) e
        where t.address = e.token_address`);
      await t.execute(sql`
        update tokens set lifecycle = 'curve', pool_address = null, graduated_block = null, graduated_at = null,
          graduated_transaction_hash = null, graduation_token_amount = null, graduation_reserve_amount = null, burned_amount = 0
        where address = any(${textArray(affected)}) and graduated_block > ${ancestor}`);
      await t.execute(sql`
        update tokens t set
          progress_bps = case when t.lifecycle = 'graduated' then 10000
                              else least(10000, div(t.real_reserve * 10000, t.graduation_threshold))::int end,
          trade_count = coalesce(s.n, 0),
          total_volume = coalesce(s.volume, 0),
          last_trade_at = s.last_at,
          last_trade_source = s.last_source,
          current_price = coalesce(s.last_price, div(t.virtual_reserve * 1000000000000000000, t.virtual_token_reserve))
        from (select a.address, agg.n, agg.volume, agg.last_at, agg.last_source, agg.last_price
                from unnest(${textArray(affected)}) as a(address)
                left join lateral (
                  select count(*)::int as n, sum(reserve_amount) as volume,
                         (array_agg(block_timestamp order by block_number desc, log_index desc))[1] as last_at,
                         (array_agg(source order by block_number desc, log_index desc))[1] as last_source,
                         (array_agg(price order by block_number desc, log_index desc))[1] as last_price
                    from trades where token_address = a.address) agg on true) s
        where t.address = s.address`);
      await t.execute(sql`
        update tokens set
          market_cap = div(current_price * (case when lifecycle = 'graduated' then total_supply - burned_amount
                                                 else curve_supply - real_token_reserve end), 1000000000000000000),
          fully_diluted_value = div(current_price * total_supply, 1000000000000000000)
        where address = any(${textArray(affected)})`);
      await t.execute(sql`
        update balances b set kind = case
            when b.wallet = t.curve_address then ${balanceKind.curve}::int
            when b.wallet = t.pool_address then ${balanceKind.pool}::int
            when b.wallet = ${BURN_ADDRESS} then ${balanceKind.burn}::int
            when b.wallet = ${context.graduator} or b.wallet = ${context.factory} then ${balanceKind.launchpad}::int
            else ${balanceKind.holder}::int end::smallint
          from tokens t where t.address = b.token_address and b.token_address = any(${textArray(affected)})`);
      await t.execute(sql`
        update tokens t set holders = (select count(*) from balances b
          where b.token_address = t.address and b.kind = ${balanceKind.holder} and b.balance > 0)
        where t.address = any(${textArray(affected)})`);
    }

    if (creators.length > 0) {
      await t.execute(
        sql`delete from creators where address = any(${textArray(creators)}) and not exists (select 1 from tokens where creator = creators.address)`,
      );
      await t.execute(sql`
        update creators c set tokens_launched = s.launched, tokens_graduated = s.graduated,
          first_launch_at = s.first_at, last_launch_at = s.last_at, total_volume = s.volume
        from (select creator, count(*)::int as launched, count(*) filter (where lifecycle = 'graduated')::int as graduated,
                     min(created_at) as first_at, max(created_at) as last_at, sum(total_volume) as volume
                from tokens where creator = any(${textArray(creators)}) group by creator) s
        where c.address = s.creator`);
    }

    const ancestorTimestamp = Number(ancestorBlock.timestamp);
    await refreshWindowMetrics(t, {
      headTimestamp: ancestorTimestamp,
      previousHeadTimestamp: checkpoint.blockTimestamp,
      tokens: affected,
    });
    await t.execute(sql`delete from recent_blocks where number > ${ancestor}`);
    await t.execute(sql`update indexer_checkpoint set indexed_through_block = ${ancestor}, block_hash = ${ancestorBlock.hash},
      block_timestamp = ${ancestorTimestamp}, updated_at = now() where id = ${CHECKPOINT_ID}`);
    await bumpReadVersion(t);
    return {
      ancestor,
      removedBlocks: checkpoint.indexedThroughBlock - ancestor,
      removedTokens: removedTokens.length,
      affectedTokens: affected.length,
    };
  });
}
