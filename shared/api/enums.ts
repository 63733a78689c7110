/** Value sets the API, the database columns and the UI share. */

export const lifecycles = ['curve', 'graduated'] as const;
export type Lifecycle = (typeof lifecycles)[number];

export const tradeSources = ['curve', 'dex_v3'] as const;
export type TradeSource = (typeof tradeSources)[number];

export const tradeSides = ['buy', 'sell'] as const;
export type TradeSide = (typeof tradeSides)[number];
