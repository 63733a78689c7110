import { eq, sql } from 'drizzle-orm';
import type { TokenDetail } from '../../../../shared/api/tokens';
import { indexedThroughBlockColumn } from '../../../db/checkpoint';
import type { Database } from '../../../db/client';
import { frozenSql } from '../../../db/frozen-sql';
import { createStatementCache, executePrepared } from '../../../db/prepared';
import { builderRowLimit } from '../../../db/row-limit';
import { balanceKind, metadataDrafts, tokens } from '../../../db/schema';
import { AppError } from '../../../errors';
import type { Context } from '../../trpc';
import { boundDraftJoin, priceChange24hBpsColumn, toTokenDetail } from './rows';

function buildDetail(db: Database) {
  return db
    .select({
      token: tokens,
      draft: {
        id: metadataDrafts.id,
        description: metadataDrafts.description,
        imageKey: metadataDrafts.imageKey,
        websiteUrl: metadataDrafts.websiteUrl,
        xUrl: metadataDrafts.xUrl,
        telegramUrl: metadataDrafts.telegramUrl,
        discordUrl: metadataDrafts.discordUrl,
      },
      indexedThroughBlock: indexedThroughBlockColumn,
      priceChange24hBps: priceChange24hBpsColumn,
      concentration: concentrationColumn,
      risk: riskColumn,
    })
    .from(tokens)
    .leftJoin(metadataDrafts, boundDraftJoin)
    .where(eq(tokens.address, sql.placeholder('address')))
    .limit(builderRowLimit(1))
    .prepare('token_detail');
}

/**
 * Supply shares from the indexed balances, in one scalar subquery per detail read: the 10 largest
 * holders (a walk of balances_holders_idx), the creator's wallet (the primary key), and the curve,
 * pool and burn rows apart (balances_accounts_idx: a token has a handful of them, whatever its
 * holder count). Basis points of total supply, rounded down (integer division).
 */
export const concentrationSql = frozenSql(sql`(
  select json_build_array(
    div((select coalesce(sum(h.balance), 0) from (select balance from balances
       where token_address = tokens.address and kind = ${balanceKind.holder}
       order by balance desc, wallet desc limit 10) h) * 10000, tokens.total_supply),
    div(coalesce((select balance from balances where token_address = tokens.address and wallet = tokens.creator), 0) * 10000, tokens.total_supply),
    div(coalesce(sum(a.balance) filter (where a.kind = ${balanceKind.curve}), 0) * 10000, tokens.total_supply),
    div(coalesce(sum(a.balance) filter (where a.kind = ${balanceKind.pool}), 0) * 10000, tokens.total_supply),
    div(coalesce(sum(a.balance) filter (where a.kind = ${balanceKind.burn}), 0) * 10000, tokens.total_supply))
  from balances a where a.token_address = tokens.address and a.kind <> ${balanceKind.holder})`);

const concentrationColumn = sql<[number, number, number, number, number]>`${concentrationSql}`.mapWith(
  (value: string | number[]) =>
    (typeof value === 'string' ? (JSON.parse(value) as number[]) : value).map(Number) as [
      number,
      number,
      number,
      number,
      number,
    ],
);

/**
 * The risk summary from precomputed `traders` rows: only labelled wallets are read (a partial
 * index, traders_labelled_idx; they are launch-window buyers and the creator's recipients, not
 * every trader), each one's balance now by the balances key, and the creator's row by its key.
 */
export const riskSql = frozenSql(sql`(
  select json_build_array(
    coalesce(div(sum(b.balance) filter (where x.sniper) * 10000, tokens.total_supply), 0),
    count(*) filter (where x.sniper),
    coalesce(div(sum(b.balance) filter (where x.bundler) * 10000, tokens.total_supply), 0),
    count(*) filter (where x.bundler),
    coalesce(div(sum(b.balance) filter (where x.creator_linked) * 10000, tokens.total_supply), 0),
    count(*) filter (where x.creator_linked),
    coalesce((select case when c.bought = 0 then 0 else div(least(c.sold, c.bought) * 10000, c.bought) end
       from traders c where c.token_address = tokens.address and c.wallet = tokens.creator), 0))
  from traders x left join balances b on b.token_address = x.token_address and b.wallet = x.wallet
  where x.token_address = tokens.address and (x.sniper or x.bundler or x.creator_linked))`);

const riskColumn = sql<number[]>`${riskSql}`.mapWith((value: string | number[]) =>
  (typeof value === 'string' ? (JSON.parse(value) as number[]) : value).map(Number),
);

const detailStatements = createStatementCache<ReturnType<typeof buildDetail>>();

/**
 * One token with every group of DESIGN.md section 6. Excluded tokens still answer (with
 * `excluded: true`): moderation hides them from lists, it does not pretend they do not exist.
 */
export async function getTokenDetail(ctx: Context, address: string): Promise<TokenDetail> {
  const [row] = await executePrepared(detailStatements(ctx.db, 'token_detail', buildDetail), { address });
  if (!row) throw new AppError('not_found', `no launched token at ${address}`);
  const [top10, creator, curve, pool, burned] = row.concentration;
  const { risk } = row;
  return {
    ...toTokenDetail(
      row.token,
      row.draft?.id ? row.draft : null,
      row.indexedThroughBlock ?? 0,
      row.priceChange24hBps,
    ),
    concentration: {
      top10_holders_bps: top10,
      creator_bps: creator,
      curve_bps: curve,
      pool_bps: pool,
      burned_bps: burned,
    },
    risk: {
      sniper_bps: risk[0] ?? 0,
      sniper_wallets: risk[1] ?? 0,
      bundler_bps: risk[2] ?? 0,
      bundler_wallets: risk[3] ?? 0,
      creator_linked_bps: risk[4] ?? 0,
      creator_linked_wallets: risk[5] ?? 0,
      creator_sold_bps: risk[6] ?? 0,
    },
  };
}
