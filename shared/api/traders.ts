import { z } from 'zod';
import { addressOut, addressPageInput, amount, blockNumberOut, page, unixTime } from './common';
import { type TraderSort, traderLabels, traderSorts } from './enums';
import { withHint } from './openapi-hints';

// The value sets live with the other enums (no zod), so pages can use them without the schemas.
export { type TraderSort, traderLabels, traderSorts };

/** An integer that may be negative (PnL), as decimal text. */
export const signedAmount = withHint(z.bigint(), {
  type: 'string',
  pattern: '^-?[0-9]+$',
  description: 'Integer as decimal text; may be negative',
  examples: ['-25000000000000000'],
});

export const tradersInput = addressPageInput.extend({
  sort: withHint(z.enum(traderSorts, { error: `sort must be one of ${traderSorts.join(', ')}` }).optional(), {
    type: 'string',
    enum: [...traderSorts],
    description:
      'realized_pnl (default), volume (quote spent + received) or holding (current position), largest first.',
  }),
});

/** One (token, wallet) position: the fields both lists share. */
const position = {
  bought: amount.meta({ description: 'Tokens bought, 18 decimals' }),
  sold: amount.meta({ description: 'Tokens sold, 18 decimals' }),
  quote_spent: amount.meta({ description: 'Quote paid for buys (gross), 18 decimals' }),
  quote_received: amount.meta({ description: 'Quote received for sells (net), 18 decimals' }),
  balance: amount.meta({ description: 'Position: bought − sold + received − sent' }),
  cost_basis: amount.meta({ description: 'Average-cost basis of the position' }),
  realized_pnl: signedAmount,
  unrealized_pnl: signedAmount.meta({ description: 'balance × price ÷ 10^18 − cost_basis' }),
  buys: z.number().int().nonnegative(),
  sells: z.number().int().nonnegative(),
  first_trade_block: blockNumberOut.nullable(),
  first_trade_at: unixTime.nullable(),
  last_trade_block: blockNumberOut.nullable(),
  last_trade_at: unixTime.nullable(),
  labels: z.array(z.enum(traderLabels)),
};

export const traderItem = z.object({ wallet: addressOut, ...position });
export const tradersPage = page(traderItem);
export type TradersPage = z.output<typeof tradersPage>;

export const walletPnlItem = z.object({
  token: addressOut,
  ...position,
  price: amount.nullable().meta({
    description:
      "The token's current price, native base units per whole token; null for a token excluded by moderation",
  }),
  unrealized_pnl: signedAmount.nullable().meta({
    description: 'balance × price ÷ 10^18 − cost_basis; null for a token excluded by moderation',
  }),
});
export const walletPnlPage = page(walletPnlItem);
export type WalletPnlPage = z.output<typeof walletPnlPage>;
