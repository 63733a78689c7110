import { z } from 'zod';
import { isAddress } from '../address';
import { SEARCH_MAX_BYTES, searchCharacters } from '../search-text';
import {
  addressInput,
  addressOut,
  addressPageInput,
  addressParam,
  amount,
  blockNumberOut,
  cursorParam,
  hashOut,
  integerParam,
  listLimitParam,
  page,
  unixSecondsParam,
  unixTime,
} from './common';
import {
  activityKinds,
  type ChartInterval,
  chartIntervals,
  lifecycles,
  type TokenView,
  tokenViews,
  tradeSides,
  tradeSources,
} from './enums';
import { TOKENS_BATCH_MAX } from './limits';

export { activityKinds, type ChartInterval, chartIntervals, type TokenView, tokenViews };

import { withHint } from './openapi-hints';

const searchParam = withHint(
  z
    .string()
    .refine((value) => Buffer.byteLength(value, 'utf8') <= SEARCH_MAX_BYTES, {
      message: `search must be at most ${SEARCH_MAX_BYTES} bytes of UTF-8`,
    })
    .refine((value) => searchCharacters.test(value), {
      message: 'search may contain only letters, numbers, spaces, dots, underscores and hyphens',
    })
    .optional(),
  {
    type: 'string',
    pattern: '^[\\p{L}\\p{N} ._-]*$',
    description:
      'Prefix of the normalized (NFKC, lowercase, trimmed) symbol, name, a word of the name, or the hex address. At most 64 UTF-8 bytes.',
    examples: ['pep'],
  },
);

const viewParam = withHint(
  z.enum(tokenViews, { error: `view must be one of ${tokenViews.join(', ')}` }).optional(),
  {
    type: 'string',
    enum: [...tokenViews],
    description:
      '`new` (default order), `top` (market cap), `near` (graduation progress), `linked` (bound metadata with links).',
  },
);

/** Refuses a combination of parameters, as error `code` on `field`. */
function refuse(ctx: z.RefinementCtx, field: string, message: string, code: string) {
  ctx.addIssue({ code: 'custom', path: [field], message, params: { code } });
}

export const listTokensInput = z
  .object({ limit: listLimitParam, cursor: cursorParam, search: searchParam, view: viewParam })
  .superRefine((input, ctx) => {
    if (input.search !== undefined && input.search.trim() !== '' && input.view !== undefined)
      refuse(ctx, 'search', 'search and view cannot be combined', 'search_view_conflict');
  });
export type ListTokensInput = z.output<typeof listTokensInput>;

export const tokenAddressInput = addressInput;

export const lifecycle = z.enum(lifecycles);

const priceChange24hBps = z.number().int().nullable().meta({
  description:
    'Price change over the indexed last 24 h in basis points: against the last price at least 24 h before the indexed head, or the first traded price for younger tokens; null before the first trade.',
});

/** Flat list row, for tables. */
export const tokenListItem = z.object({
  address: addressOut,
  name: z.string(),
  symbol: z.string(),
  image_url: z.string().nullable().meta({ description: 'Path under /objects of the bound image, or null' }),
  creator: addressOut,
  created_at: unixTime,
  lifecycle,
  progress_bps: z.number().int().min(0).max(10000),
  current_price: amount,
  price_change_24h_bps: priceChange24hBps,
  market_cap: amount,
  volume_24h: amount,
  trades_24h: z.number().int().nonnegative(),
  holders: z.number().int().nonnegative(),
});
export type TokenListItem = z.output<typeof tokenListItem>;

export const tokenPage = page(tokenListItem);

const addressesMessage = `addresses must list 1 to ${TOKENS_BATCH_MAX} token addresses separated by commas`;

/** Comma-separated addresses (any hex case); a tRPC caller may pass an array. */
export const tokensBatchInput = z.object({
  addresses: withHint(
    z.preprocess(
      (value) => (Array.isArray(value) ? value.join(',') : value),
      z.string({ error: addressesMessage }).transform((value, ctx) => {
        // A repeat counts once (docs/api.md, "Bulk lookup"), whatever its hex case: entries are
        // folded to one per lowercase spelling, in the order of the request, before they are
        // counted. The request target's 8 KiB cap (the HTTP front) bounds what is folded.
        const distinct = new Map<string, string>();
        for (const entry of value.split(',')) {
          const key = entry.toLowerCase();
          if (!distinct.has(key)) distinct.set(key, entry);
        }
        if (value === '' || distinct.size > TOKENS_BATCH_MAX) {
          ctx.addIssue({ code: 'custom', message: addressesMessage });
          return z.NEVER;
        }
        const malformed = [...distinct.values()].filter((entry) => !isAddress(entry));
        for (const entry of malformed.slice(0, 5))
          ctx.addIssue({
            code: 'custom',
            message: `${JSON.stringify(entry.slice(0, 50))} is not a 0x-prefixed 20-byte hex address`,
            params: { code: 'invalid_address' },
          });
        if (malformed.length > 0) return z.NEVER;
        return [...distinct.keys()] as `0x${string}`[];
      }),
    ),
    {
      type: 'string',
      // No repetition bound in the pattern: 60 entries naming 50 tokens are a valid request.
      pattern: '^0x[0-9a-fA-F]{40}(,0x[0-9a-fA-F]{40})*$',
      description: `1 to ${TOKENS_BATCH_MAX} distinct token addresses separated by commas, any hex case; a repeated address counts once.`,
      examples: ['0x5fbdb2315678afecb367f032d93f642f64180aa3,0xe7f1725e7734ce288f8367e1bb143e90bb3f0512'],
    },
  ),
});
export type TokensBatchInput = z.output<typeof tokensBatchInput>;

export const tokensBatch = z.object({
  indexed_through_block: blockNumberOut.meta({
    description: 'Last fully indexed block, read in the same snapshot as the items.',
  }),
  items: z.array(tokenListItem).meta({ description: 'List items in the order of the request' }),
  not_found: z.array(addressOut).meta({ description: 'Requested addresses that are not launched tokens' }),
  excluded: z
    .array(addressOut)
    .meta({ description: 'Requested tokens hidden by moderation (their detail still answers)' }),
});
export type TokensBatch = z.output<typeof tokensBatch>;
export type TokenPage = z.output<typeof tokenPage>;

const indexedThroughBlock = blockNumberOut.meta({
  description:
    'Last block whose events are fully indexed, read in the same snapshot as the data (0 before the first block).',
});

const bps = z.number().int().min(0).max(10000);

export const tokenDetail = z.object({
  indexed_through_block: indexedThroughBlock,
  identity: z.object({
    address: addressOut,
    name: z.string(),
    symbol: z.string(),
    decimals: z.number().int(),
    total_supply: amount,
  }),
  metadata: z
    .object({
      description: z.string(),
      image_url: z.string(),
      website_url: z.string().nullable(),
      x_url: z.string().nullable(),
      telegram_url: z.string().nullable(),
      discord_url: z.string().nullable(),
      draft_id: z.string(),
    })
    .nullable(),
  creation: z.object({
    creator: addressOut,
    block_number: blockNumberOut,
    block_timestamp: unixTime,
    transaction_hash: hashOut,
    transaction_index: z.number().int().nonnegative(),
    log_index: z.number().int().nonnegative(),
  }),
  curve: z.object({
    lifecycle,
    virtual_token_reserve: amount,
    virtual_reserve: amount,
    real_token_reserve: amount,
    real_reserve: amount,
    graduation_threshold: amount,
    progress_bps: z.number().int().min(0).max(10000),
  }),
  metrics: z.object({
    current_price: amount,
    price_change_24h_bps: priceChange24hBps,
    market_cap: amount,
    fully_diluted_value: amount,
    volume_24h: amount,
    trades_24h: z.number().int().nonnegative(),
    traders_24h: z.number().int().nonnegative(),
    holders: z.number().int().nonnegative(),
    last_trade_at: unixTime.nullable(),
  }),
  graduation: z
    .object({
      pool_address: addressOut,
      block_number: blockNumberOut,
      block_timestamp: unixTime,
      transaction_hash: hashOut,
      token_amount: amount,
      reserve_amount: amount,
    })
    .optional(),
  concentration: z
    .object({
      top10_holders_bps: z.number().int().min(0).max(10000).meta({
        description:
          'Held by the 10 largest holders (the curve, the pool, the burn address and launchpad contracts are not holders)',
      }),
      creator_bps: z.number().int().min(0).max(10000).meta({ description: "Held by the creator's wallet" }),
      curve_bps: z.number().int().min(0).max(10000).meta({ description: 'Still on the bonding curve' }),
      pool_bps: z
        .number()
        .int()
        .min(0)
        .max(10000)
        .meta({ description: 'In the Uniswap V3 pool (after graduation)' }),
      burned_bps: z.number().int().min(0).max(10000).meta({ description: 'Sent to the burn address' }),
    })
    .meta({ description: 'Shares of total supply in basis points, from indexed balances (rounded down)' }),
  risk: z
    .object({
      sniper_bps: bps.meta({ description: 'Held now by wallets labelled sniper' }),
      sniper_wallets: z.number().int().nonnegative(),
      bundler_bps: bps.meta({ description: 'Held now by wallets labelled bundler' }),
      bundler_wallets: z.number().int().nonnegative(),
      creator_linked_bps: bps.meta({ description: 'Held now by wallets labelled creator_linked' }),
      creator_linked_wallets: z.number().int().nonnegative(),
      creator_sold_bps: bps.meta({
        description:
          "dev_sold: the creator's cluster's (the creator and its creator_linked wallets) sold ÷ bought tokens (0 when it never bought; at most 10000)",
      }),
    })
    .meta({
      description:
        'Trader labels summed (docs/api.md "Traders, PnL and labels"): shares of total supply in basis points, rounded down',
    }),
  excluded: z.boolean().meta({ description: 'Hidden from lists by moderation; detail still answers.' }),
});
export type TokenDetail = z.output<typeof tokenDetail>;

export const trendingInput = listTokensInput;

export const pricing = z.object({
  token_address: addressOut,
  current_price: amount.meta({ description: 'Native base units (18 decimals) per whole token' }),
  fully_diluted_value: amount,
  source: z.enum(['indexed_v3_curve', 'indexed_v3_market']).meta({
    description:
      '`indexed_v3_market` only for a graduated token whose latest indexed trade is a `dex_v3` trade.',
  }),
  indexed_through_block: indexedThroughBlock,
});
export type Pricing = z.output<typeof pricing>;

export const chartInput = z
  .object({
    address: addressParam,
    interval: withHint(
      z
        .enum(chartIntervals, { error: `interval must be one of ${chartIntervals.join(', ')}` })
        .optional()
        .default('1h'),
      { type: 'string', enum: [...chartIntervals], default: '1h' },
    ),
    limit: integerParam({ name: 'limit', min: 1, max: 1000, default: 168 }),
    from: unixSecondsParam('from', 'Inclusive lower bound on bucket start (Unix seconds).'),
    to: unixSecondsParam('to', 'Exclusive upper bound on bucket start (Unix seconds).'),
    fill: withHint(
      z.enum(['none', 'previous'], { error: 'fill must be none or previous' }).optional().default('none'),
      {
        type: 'string',
        enum: ['none', 'previous'],
        default: 'none',
        description: '`previous`: gap-free, empty buckets carry the last close with zero volume.',
      },
    ),
  })
  .superRefine((input, ctx) => {
    if (input.from !== undefined && input.to !== undefined && input.from >= input.to)
      refuse(ctx, 'from', 'from must be earlier than to (the range is [from, to))', 'invalid_range');
  });
export type ChartInput = z.output<typeof chartInput>;

export const chartPoint = z.object({
  time: unixTime.meta({ description: 'Bucket start' }),
  open: amount,
  high: amount,
  low: amount,
  close: amount,
  volume: amount.meta({ description: 'Native base units traded in the bucket' }),
  trades: z.number().int().nonnegative(),
});
export const chart = z.object({
  token_address: addressOut,
  interval: z.enum(chartIntervals),
  indexed_through_block: indexedThroughBlock,
  items: z.array(chartPoint).meta({ description: 'Oldest first' }),
});
export type Chart = z.output<typeof chart>;

export const trade = z.object({
  block_timestamp: unixTime,
  token_address: addressOut,
  trader: addressOut,
  side: z.enum(tradeSides),
  token_amount: amount,
  reserve_amount: amount,
  curve_value: amount,
  protocol_fee: amount,
  creator_fee: amount,
  source: z.enum(tradeSources),
  block_number: blockNumberOut,
  transaction_index: z.number().int().nonnegative(),
  transaction_hash: hashOut,
  log_index: z.number().int().nonnegative(),
});
export const tradesPage = z.object({
  indexed_through_block: indexedThroughBlock,
  items: z.array(trade),
  next_cursor: z.string().nullable(),
});
export type TradesPage = z.output<typeof tradesPage>;

export const activityInput = addressPageInput.extend({
  kind: withHint(
    z.enum(activityKinds, { error: `kind must be one of ${activityKinds.join(', ')}` }).optional(),
    {
      type: 'string',
      enum: [...activityKinds],
      description: 'Only events of this kind.',
    },
  ),
});
export const activityItem = z.object({
  kind: z.enum(activityKinds),
  block_number: blockNumberOut,
  block_timestamp: unixTime,
  block_hash: hashOut,
  transaction_hash: hashOut,
  transaction_index: z.number().int().nonnegative(),
  log_index: z.number().int().nonnegative(),
  data: z
    .record(z.string(), z.string())
    .meta({ description: 'Decoded event fields; amounts as decimal text' }),
});
export const activityPage = page(activityItem);
export type ActivityPage = z.output<typeof activityPage>;

export const holderItem = z.object({
  wallet: addressOut,
  balance: amount,
  share_bps: z
    .number()
    .int()
    .min(0)
    .max(10000)
    .meta({ description: 'Balance as basis points of total supply' }),
});
export const holdersPage = page(holderItem);
export type HoldersPage = z.output<typeof holdersPage>;
