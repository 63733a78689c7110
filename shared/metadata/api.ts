import type { Address, Hex } from 'viem';
import { z } from 'zod';
import { isAddress } from '../address';

/** The metadata routes' request and answer shapes, which the launch client and the server share. */

export const draftResponse = z.object({
  draft_id: z.string(),
  metadata_hash: z.string().regex(/^0x[0-9a-f]{64}$/),
  image_url: z.string(),
  name: z.string(),
  symbol: z.string(),
  initial_supply: z.string().regex(/^\d+$/),
  description: z.string(),
  website_url: z.string().nullable(),
  x_url: z.string().nullable(),
  telegram_url: z.string().nullable(),
  discord_url: z.string().nullable(),
  creator: z.string().nullable(),
  created_at: z.string(),
});
export type DraftResponse = z.output<typeof draftResponse>;

export const finalizeBody = z.object({
  token_address: z
    .string({ error: 'token_address is required' })
    .refine(isAddress, {
      message: 'token_address must be a 0x-prefixed 20-byte hex address',
      params: { code: 'invalid_address' },
    })
    .transform((v) => v.toLowerCase() as Address),
  transaction_hash: z
    .string({ error: 'transaction_hash is required' })
    .regex(/^0x[0-9a-fA-F]{64}$/, { message: 'transaction_hash must be a 0x-prefixed 32-byte hex hash' })
    .transform((v) => v.toLowerCase() as Hex),
  signature: z
    .string({ error: 'signature is required' })
    .regex(/^0x([0-9a-fA-F]{2}){64,4096}$/, { message: 'signature must be 0x-prefixed hex' })
    .transform((v) => v as Hex),
});
export type FinalizeBody = z.output<typeof finalizeBody>;

export const finalizeResponse = z.object({
  draft_id: z.string(),
  token_address: z.string(),
  transaction_hash: z.string(),
  metadata_hash: z.string(),
  bound_at: z.string(),
});
export type FinalizeResponse = z.output<typeof finalizeResponse>;
