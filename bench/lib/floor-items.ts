/**
 * The floor's answers as JSON values: Launchdex's fields in Launchdex's order (the schemas in
 * server/api/routers/<domain>/schemas.ts), from rows whose columns carry the answer's names.
 */

export type Row = Record<string, unknown>;

/** A token list item, fields in the order of Launchdex's answer (tokenListItem). */
export const listItem = (r: Row) => ({
  address: r.address,
  name: r.name,
  symbol: r.symbol,
  image_url: r.image_url,
  creator: r.creator,
  created_at: r.created_at,
  lifecycle: r.lifecycle,
  progress_bps: r.progress_bps,
  current_price: r.current_price,
  price_change_24h_bps: r.price_change_24h_bps,
  market_cap: r.market_cap,
  volume_24h: r.volume_24h,
  trades_24h: r.trades_24h,
  holders: r.holders,
});

/** A token detail, groups and fields in the order of Launchdex's answer (tokenDetail). */
export function tokenDetail(r: Row) {
  const graduated =
    r.pool_address !== null &&
    r.graduated_block !== null &&
    r.graduated_at !== null &&
    r.graduated_transaction_hash !== null &&
    r.graduation_token_amount !== null &&
    r.graduation_reserve_amount !== null;
  return {
    indexed_through_block: r.ib,
    identity: {
      address: r.address,
      name: r.name,
      symbol: r.symbol,
      decimals: r.decimals,
      total_supply: r.total_supply,
    },
    metadata: r.draft_id
      ? {
          description: r.description,
          image_url: r.image_url,
          website_url: r.website_url,
          x_url: r.x_url,
          telegram_url: r.telegram_url,
          discord_url: r.discord_url,
          draft_id: r.draft_id,
        }
      : null,
    creation: {
      creator: r.creator,
      block_number: r.created_block,
      block_timestamp: r.created_at,
      transaction_hash: r.created_transaction_hash,
      transaction_index: r.created_transaction_index,
      log_index: r.created_log_index,
    },
    curve: {
      lifecycle: r.lifecycle,
      virtual_token_reserve: r.virtual_token_reserve,
      virtual_reserve: r.virtual_reserve,
      real_token_reserve: r.real_token_reserve,
      real_reserve: r.real_reserve,
      graduation_threshold: r.graduation_threshold,
      progress_bps: r.progress_bps,
    },
    metrics: {
      current_price: r.current_price,
      price_change_24h_bps: r.price_change_24h_bps,
      market_cap: r.market_cap,
      fully_diluted_value: r.fully_diluted_value,
      volume_24h: r.volume_24h,
      trades_24h: r.trades_24h,
      traders_24h: r.traders_24h,
      holders: r.holders,
      last_trade_at: r.last_trade_at,
    },
    ...(graduated
      ? {
          graduation: {
            pool_address: r.pool_address,
            block_number: r.graduated_block,
            block_timestamp: r.graduated_at,
            transaction_hash: r.graduated_transaction_hash,
            token_amount: r.graduation_token_amount,
            reserve_amount: r.graduation_reserve_amount,
          },
        }
      : {}),
    concentration: {
      top10_holders_bps: r.top10_holders_bps,
      creator_bps: r.creator_bps,
      curve_bps: r.curve_bps,
      pool_bps: r.pool_bps,
      burned_bps: r.burned_bps,
    },
    risk: {
      sniper_bps: r.sniper_bps,
      sniper_wallets: r.sniper_wallets,
      bundler_bps: r.bundler_bps,
      bundler_wallets: r.bundler_wallets,
      creator_linked_bps: r.creator_linked_bps,
      creator_linked_wallets: r.creator_linked_wallets,
      creator_sold_bps: r.creator_sold_bps,
    },
    excluded: r.excluded,
  };
}

export const tradeItem = (r: Row) => ({
  block_timestamp: r.block_timestamp,
  token_address: r.token_address,
  trader: r.trader,
  side: r.side,
  token_amount: r.token_amount,
  reserve_amount: r.reserve_amount,
  curve_value: r.curve_value,
  protocol_fee: r.protocol_fee,
  creator_fee: r.creator_fee,
  source: r.source,
  block_number: r.block_number,
  transaction_index: r.transaction_index,
  transaction_hash: r.transaction_hash,
  log_index: r.log_index,
});

export const activityItem = (r: Row) => ({
  kind: r.kind,
  block_number: r.block_number,
  block_timestamp: r.block_timestamp,
  block_hash: r.block_hash,
  transaction_hash: r.transaction_hash,
  transaction_index: r.transaction_index,
  log_index: r.log_index,
  data: r.data,
});

export const holderItem = (r: Row) => ({ wallet: r.wallet, balance: r.balance, share_bps: r.share_bps });

export const holdingItem = (r: Row) => ({
  token: listItem(r),
  balance: r.balance,
  lifecycle: r.lifecycle,
  price: r.price,
  value: r.value,
  metrics: { market_cap: r.market_cap, volume_24h: r.volume_24h, holders: r.holders },
});

/** A trader's position fields, in the order of Launchdex's answer (server/api/traders/read.ts). */
const positionOf = (r: Row) => ({
  bought: r.bought,
  sold: r.sold,
  quote_spent: r.quote_spent,
  quote_received: r.quote_received,
  balance: r.balance,
  cost_basis: r.cost_basis,
  realized_pnl: r.realized_pnl,
  unrealized_pnl: r.unrealized_pnl,
  buys: r.buys,
  sells: r.sells,
  first_trade_block: r.first_trade_block,
  first_trade_at: r.first_trade_at,
  last_trade_block: r.last_trade_block,
  last_trade_at: r.last_trade_at,
  labels: (
    [
      ['creator', r.is_creator],
      ['sniper', r.sniper],
      ['bundler', r.bundler],
      ['creator_linked', r.creator_linked],
    ] as const
  )
    .filter(([, flag]) => flag === true)
    .map(([label]) => label),
});

/** An item of a token's traders. */
export const traderItem = (r: Row) => ({ wallet: r.wallet, ...positionOf(r) });

/** An item of a wallet's PnL. */
export const pnlItem = (r: Row) => ({ token: r.token, ...positionOf(r), price: r.price });
