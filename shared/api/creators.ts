import { z } from 'zod';
import { addressOut, amount, blockNumberOut, unixTime } from './common';

export const creator = z.object({
  address: addressOut,
  tokens_launched: z.number().int().nonnegative(),
  tokens_graduated: z.number().int().nonnegative(),
  first_launch_at: unixTime,
  last_launch_at: unixTime,
  total_volume: amount.meta({ description: 'Native base units traded on all of the creator’s tokens' }),
  indexed_through_block: blockNumberOut,
});
export type Creator = z.output<typeof creator>;
