import { sql } from 'drizzle-orm';
import { bulkInsert, textArray } from '../../db/bulk';
import { type Database, selectRows } from '../../db/client';
import { traders } from '../../db/schema';
import { bulkColumns, nonKeyNames } from '../../db/table-columns';
import type { BatchPlan, ProjectionContext } from './fold';
import { journaledTables, recordBefore } from './journal';
import { applyTraderOps, defaultLabelParams, type TraderRow, type TraderToken } from './traders';

const traderColumns = bulkColumns(traders);
const updates = nonKeyNames(traders)
  .map((c) => `"${c}" = excluded."${c}"`)
  .join(', ');

type StoredTrader = Record<string, string | number | boolean | null>;

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

function fromStored(r: StoredTrader): TraderRow {
  return {
    token: String(r.token_address),
    wallet: String(r.wallet),
    bought: BigInt(String(r.bought)),
    sold: BigInt(String(r.sold)),
    quoteSpent: BigInt(String(r.quote_spent)),
    quoteReceived: BigInt(String(r.quote_received)),
    balance: BigInt(String(r.balance)),
    costBasis: BigInt(String(r.cost_basis)),
    realizedPnl: BigInt(String(r.realized_pnl)),
    buys: Number(r.buys),
    sells: Number(r.sells),
    firstTradeBlock: num(r.first_trade_block),
    firstTradeAt: num(r.first_trade_at),
    lastTradeBlock: num(r.last_trade_block),
    lastTradeAt: num(r.last_trade_at),
    isCreator: Boolean(r.is_creator),
    sniper: Boolean(r.sniper),
    bundler: Boolean(r.bundler),
    creatorLinked: Boolean(r.creator_linked),
  };
}

function toStored(r: TraderRow): Record<string, unknown> {
  return {
    token_address: r.token,
    wallet: r.wallet,
    bought: r.bought,
    sold: r.sold,
    quote_spent: r.quoteSpent,
    quote_received: r.quoteReceived,
    volume: r.quoteSpent + r.quoteReceived,
    balance: r.balance,
    cost_basis: r.costBasis,
    realized_pnl: r.realizedPnl,
    buys: r.buys,
    sells: r.sells,
    first_trade_block: r.firstTradeBlock,
    first_trade_at: r.firstTradeAt,
    last_trade_block: r.lastTradeBlock,
    last_trade_at: r.lastTradeAt,
    is_creator: r.isCreator,
    sniper: r.sniper,
    bundler: r.bundler,
    creator_linked: r.creatorLinked,
  };
}

/**
 * Folds the range's trader ops onto `traders`, in the range's transaction. Average-cost PnL
 * depends on the order of a wallet's trades, so unlike balances the rows cannot be merged by
 * adding deltas in SQL: the touched rows are read (one query), advanced in chain order, journaled
 * and written back. Runs after the launches are inserted (their creator and block are read here).
 */
export async function writeTraders(
  t: Database,
  context: ProjectionContext,
  plan: BatchPlan,
  seq: number | undefined,
): Promise<void> {
  const keys = new Map<string, [string, string]>();
  for (const op of plan.traderOps) keys.set(`${op.token} ${op.wallet}`, [op.token, op.wallet]);
  const keyTokens = textArray([...keys.values()].map(([token]) => token));
  const keyWallets = textArray([...keys.values()].map(([, wallet]) => wallet));
  const keyRelation = sql`(select unnest(${keyTokens}::text[]) as token_address, unnest(${keyWallets}::text[]) as wallet) s`;
  const tokenAddresses = [...new Set([...keys.values()].map(([token]) => token))];
  const tokenRows = await selectRows<{ address: string; creator: string; created_block: string | number }>(
    t,
    sql`select address, creator, created_block from tokens where address = any(${textArray(tokenAddresses)})`,
  );
  const tokenInfo = new Map<string, TraderToken>(
    tokenRows.map((r) => [r.address, { creator: r.creator, createdBlock: Number(r.created_block) }]),
  );
  const stored = await selectRows<StoredTrader>(
    t,
    sql`select x.* from traders x join ${keyRelation} on x.token_address = s.token_address and x.wallet = s.wallet`,
  );
  const rows = new Map<string, TraderRow>();
  const storedKeys = new Set<string>();
  for (const r of stored) {
    const row = fromStored(r);
    rows.set(`${row.token} ${row.wallet}`, row);
    storedKeys.add(`${row.token} ${row.wallet}`);
  }
  if (seq !== undefined) await recordBefore(t, seq, journaledTables.traders, keyRelation);
  const touched = applyTraderOps(
    rows,
    plan.traderOps,
    (token) => tokenInfo.get(token),
    context.labels ?? defaultLabelParams,
  );
  // New rows go in by COPY without a conflict clause (most rows of a backfill are new: the
  // upsert through a staging table cost twice as much); a row that exists after all fails the
  // key loudly. Rows read above are updated.
  const fresh = touched.filter((row) => !storedKeys.has(`${row.token} ${row.wallet}`));
  const known = touched.filter((row) => storedKeys.has(`${row.token} ${row.wallet}`));
  if (fresh.length > 0) await bulkInsert(t, 'traders', traderColumns, fresh.map(toStored));
  if (known.length > 0)
    await bulkInsert(
      t,
      'traders',
      traderColumns,
      known.map(toStored),
      `on conflict (wallet, token_address) do update set ${updates}`,
    );
}
