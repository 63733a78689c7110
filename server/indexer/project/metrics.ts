import { type SQL, sql } from 'drizzle-orm';
import { textArray } from '../../db/bulk';
import type { Database } from '../../db/client';
import { TRENDING_WINDOW_SECONDS, trendingScoreSql } from '../../tokens/trending';

/**
 * Recomputes the 24 h window metrics (volume, trades, distinct traders, trending score) relative
 * to the indexed head's timestamp. A token's window changes only when it trades or when one of
 * its trades leaves the window, so the candidates are the tokens just traded plus those whose
 * last trade is recent enough to have been inside the previous window.
 */
export interface WindowMove {
  headTimestamp: number;
  previousHeadTimestamp: number;
  /** Tokens traded in the blocks just written. */
  tokens: string[];
}

/** A condition on `tokens`: the rows whose window metrics `move` may change (see below). */
export function windowCandidates(move: WindowMove): SQL {
  const since = Math.min(move.headTimestamp, move.previousHeadTimestamp) - TRENDING_WINDOW_SECONDS;
  return sql`(address = any(${textArray(move.tokens)}) or (last_trade_at is not null and last_trade_at > ${since}))`;
}

export async function refreshWindowMetrics(db: Database, p: WindowMove): Promise<void> {
  const since = p.headTimestamp - TRENDING_WINDOW_SECONDS;
  await db.execute(sql`
    with candidates as (
      select address from tokens where ${windowCandidates(p)}
    ),
    windows as (
      select c.address,
             coalesce(sum(tr.reserve_amount), 0) as vol,
             count(tr.token_address)::int as n,
             count(distinct tr.trader)::int as traders
        from candidates c
        left join trades tr on tr.token_address = c.address and tr.block_timestamp > ${since} and tr.block_timestamp <= ${p.headTimestamp}
       group by c.address
    )
    update tokens set volume_24h = w.vol, trades_24h = w.n, traders_24h = w.traders, trending_score = ${sql.raw(trendingScoreSql)}
      from windows w where tokens.address = w.address`);
}
