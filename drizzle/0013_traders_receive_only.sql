-- A wallet that only received a token (and maybe sent it on) no longer has a `traders` row: its
-- position is its balance at zero cost, which `balances` holds (docs/api.md "Traders, PnL and
-- labels"). Rows written by the earlier rule for such wallets go: no trades, no label. A wallet
-- that paid a pool swap for another without trading keeps a row under the new rule too, but the
-- old rule's row cannot tell it apart; it reopens, from its balance, at its next trade.
DELETE FROM "traders" WHERE "buys" = 0 AND "sells" = 0 AND NOT ("sniper" OR "bundler" OR "creator_linked");
