/**
 * Value sets the API, the database columns and the UI share. Plain constants (no zod), so a page
 * that needs one does not ship the schema library.
 */

export const lifecycles = ['curve', 'graduated'] as const;
export type Lifecycle = (typeof lifecycles)[number];

export const tradeSources = ['curve', 'dex_v3'] as const;
export type TradeSource = (typeof tradeSources)[number];

export const tradeSides = ['buy', 'sell'] as const;
export type TradeSide = (typeof tradeSides)[number];

export const tokenViews = ['new', 'top', 'near', 'linked'] as const;
export type TokenView = (typeof tokenViews)[number];

export const chartIntervals = ['1m', '5m', '15m', '1h', '4h', '1d', '1w'] as const;
export type ChartInterval = (typeof chartIntervals)[number];

export const activityKinds = ['launch', 'trade', 'graduation', 'transfer', 'swap'] as const;

/** Sorts of a token's traders, each served by an index of `traders` (largest first). */
export const traderSorts = ['realized_pnl', 'volume', 'holding'] as const;
export type TraderSort = (typeof traderSorts)[number];

/** docs/api.md "Traders, PnL and labels" defines each. */
export const traderLabels = ['creator', 'sniper', 'bundler', 'creator_linked'] as const;
export type TraderLabel = (typeof traderLabels)[number];
