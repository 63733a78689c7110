import { z } from 'zod';
import { amount, page } from './common';
import { lifecycle, tokenListItem } from './tokens';

export const holding = z.object({
  token: tokenListItem,
  balance: amount.meta({ description: 'Raw balance, 18 decimals' }),
  lifecycle,
  price: amount.nullable().meta({
    description: 'Native base units per whole token; null when the token is excluded by moderation',
  }),
  value: amount.nullable().meta({ description: 'balance × price / 10^18; null when price is null' }),
  metrics: z.object({ market_cap: amount, volume_24h: amount, holders: z.number().int().nonnegative() }),
});
export const holdingsPage = page(holding);
export type HoldingsPage = z.output<typeof holdingsPage>;
