import { z } from 'zod';
import { lifecycles } from '../../../db/schema';
import { SEARCH_MAX_BYTES, searchCharacters } from '../../../tokens/search-text';
import {
  addressOut,
  addressParam,
  amount,
  blockNumberOut,
  cursorParam,
  hashOut,
  listLimitParam,
  page,
  unixTime,
} from '../../schemas/common';
import { withHint } from '../../schemas/openapi-hints';

export const tokenViews = ['new', 'top', 'near', 'linked'] as const;
export type TokenView = (typeof tokenViews)[number];

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

export const listTokensInput = z
  .object({ limit: listLimitParam, cursor: cursorParam, search: searchParam, view: viewParam })
  .superRefine((input, ctx) => {
    if (input.search !== undefined && input.search.trim() !== '' && input.view !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['search'],
        message: 'search and view cannot be combined',
        params: { code: 'search_view_conflict' },
      });
    }
  });
export type ListTokensInput = z.output<typeof listTokensInput>;

export const listPageInput = z.object({ limit: listLimitParam, cursor: cursorParam });
export type ListPageInput = z.output<typeof listPageInput>;

export const tokenAddressInput = z.object({ address: addressParam });

export const lifecycle = z.enum(lifecycles);

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
  market_cap: amount,
  volume_24h: amount,
  trades_24h: z.number().int().nonnegative(),
  holders: z.number().int().nonnegative(),
});
export type TokenListItem = z.output<typeof tokenListItem>;

export const tokenPage = page(tokenListItem);
export type TokenPage = z.output<typeof tokenPage>;

export const tokenDetail = z.object({
  indexed_through_block: blockNumberOut.nullable(),
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
  excluded: z.boolean().meta({ description: 'Hidden from lists by moderation; detail still answers.' }),
});
export type TokenDetail = z.output<typeof tokenDetail>;
