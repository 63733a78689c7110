import type { Database } from '../../db/client';
import { logChunkOf } from '../store/stored-logs';
import type { RangeData } from '../sync/range-algebra';
import { createBalanceBook, loadBalances, loadTraderBalances } from './balance-book';
import { foldRange, type ProjectionContext, touchedTokens } from './fold';
import { readTokenStates } from './token-rows';
import { createTraderBook, foldTraders, loadTraders } from './trader-book';
import { defaultLabelParams } from './traders';
import { type WriteResult, writePlan } from './write';

export type { Checkpoint } from '../../db/checkpoint';
export { readCheckpoint } from '../../db/checkpoint';
export type { ProjectionContext } from './fold';

/**
 * Projects one fetched range on its own: reads the states, balances and trader rows it touches, folds,
 * writes. The indexer pipelines these steps across ranges (with token states and balances
 * kept in memory) instead. It reads nothing from the chain, so no wallet is found funded by the
 * creator here (sync/funding-blocks.ts: the pipeline reads that).
 */
export async function applyBatch(
  db: Database,
  context: ProjectionContext,
  range: RangeData,
): Promise<WriteResult> {
  const states = await readTokenStates(db, touchedTokens(range));
  const book = createBalanceBook(Number.POSITIVE_INFINITY);
  await loadBalances(db, book, range.events);
  const plan = foldRange(range, context, states, book.view);
  plan.rawLogs = logChunkOf(range);
  const traders = createTraderBook(Number.POSITIVE_INFINITY);
  await loadTraders(db, traders, plan);
  await loadTraderBalances(db, book, plan);
  foldTraders(plan, traders.view, book.view, context.labels ?? defaultLabelParams);
  return writePlan(db, context, plan);
}
