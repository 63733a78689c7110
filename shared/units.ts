/**
 * Base units. Tokens and the native currency both have 18 decimals, so one whole token, one
 * whole native unit and the fixed-point scale of prices (native base units per whole token) are
 * all 10^18.
 */
export const DECIMALS = 18;

/** 10^18: one whole token or native unit in base units; prices are scaled by it. */
export const WAD = 10n ** 18n;
