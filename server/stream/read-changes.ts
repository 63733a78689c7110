import { sql } from 'drizzle-orm';
import type { LiveEvent } from '../../shared/stream/events';
import { type Database, selectRows } from '../db/client';

type Row = Record<string, string | number | null>;

export interface IndexChanges {
  events: LiveEvent[];
  /** More than `limit` events of one kind: the caller tells clients to refetch instead. */
  truncated: boolean;
}

/**
 * Launches, trades and graduations in blocks (after, through], in chain order (block, log index),
 * read from the projections (so from any instance, whoever indexes). Excluded tokens are left out,
 * as in every list.
 */
export async function readIndexChanges(
  db: Database,
  after: number,
  through: number,
  limit: number,
): Promise<IndexChanges> {
  const [launches, trades, graduations] = await Promise.all([
    selectRows<Row>(
      db,
      sql`select address, name, symbol, creator, created_at, created_block, created_transaction_hash, created_log_index
            from tokens where created_block > ${after} and created_block <= ${through} and not excluded
           order by created_block, created_log_index limit ${limit + 1}`,
    ),
    selectRows<Row>(
      db,
      sql`select token_address, trader, side, source, token_amount::text, reserve_amount::text, curve_value::text,
                 protocol_fee::text, creator_fee::text, block_number, block_timestamp, transaction_index, transaction_hash, log_index
            from trades tr
           where block_number > ${after} and block_number <= ${through}
             and not exists (select 1 from token_exclusions x where x.token_address = tr.token_address)
           order by block_number, log_index limit ${limit + 1}`,
    ),
    selectRows<Row>(
      db,
      sql`select e.token_address, t.pool_address, e.block_number, e.block_timestamp, e.transaction_hash, e.log_index
            from chain_events e join tokens t on t.address = e.token_address
           where e.block_number > ${after} and e.block_number <= ${through} and e.kind = 'graduation' and not t.excluded
           order by e.block_number, e.log_index limit ${limit + 1}`,
    ),
  ]);
  if (launches.length > limit || trades.length > limit || graduations.length > limit)
    return { events: [], truncated: true };
  const keyed: { block: number; log: number; event: LiveEvent }[] = [
    ...launches.map((r) => ({
      block: Number(r.created_block),
      log: Number(r.created_log_index),
      event: {
        type: 'launch' as const,
        data: {
          address: String(r.address),
          name: String(r.name),
          symbol: String(r.symbol),
          creator: String(r.creator),
          created_at: Number(r.created_at),
          block_number: Number(r.created_block),
          transaction_hash: String(r.created_transaction_hash),
          log_index: Number(r.created_log_index),
        },
      },
    })),
    ...trades.map((r) => ({
      block: Number(r.block_number),
      log: Number(r.log_index),
      event: {
        type: 'trade' as const,
        data: {
          token_address: String(r.token_address),
          trader: String(r.trader),
          side: r.side === 'sell' ? ('sell' as const) : ('buy' as const),
          source: r.source === 'dex_v3' ? ('dex_v3' as const) : ('curve' as const),
          token_amount: String(r.token_amount),
          reserve_amount: String(r.reserve_amount),
          curve_value: String(r.curve_value),
          protocol_fee: String(r.protocol_fee),
          creator_fee: String(r.creator_fee),
          block_number: Number(r.block_number),
          block_timestamp: Number(r.block_timestamp),
          transaction_index: Number(r.transaction_index),
          transaction_hash: String(r.transaction_hash),
          log_index: Number(r.log_index),
        },
      },
    })),
    ...graduations.map((r) => ({
      block: Number(r.block_number),
      log: Number(r.log_index),
      event: {
        type: 'graduation' as const,
        data: {
          token_address: String(r.token_address),
          pool_address: String(r.pool_address),
          block_number: Number(r.block_number),
          block_timestamp: Number(r.block_timestamp),
          transaction_hash: String(r.transaction_hash),
          log_index: Number(r.log_index),
        },
      },
    })),
  ];
  keyed.sort((a, b) => a.block - b.block || a.log - b.log);
  return { events: keyed.map((k) => k.event), truncated: false };
}
