import { z } from 'zod';

// The launch form in the browser validates with these same schemas (components/launch): keep this
// module free of Node APIs and server imports.

/** Contract limits (LaunchFactory.MIN_SUPPLY / MAX_SUPPLY), in base units (18 decimals). */
export const MIN_INITIAL_SUPPLY = 10n ** 21n;
export const MAX_INITIAL_SUPPLY = 10n ** 33n;
/** The spec's image limit (the file as uploaded, and again after re-encoding). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Image types a draft accepts (judged by content, never by the client's Content-Type). */
export const imageFormats = {
  'image/png': { extension: 'png' },
  'image/jpeg': { extension: 'jpg' },
  'image/webp': { extension: 'webp' },
  'image/gif': { extension: 'gif' },
} as const;

const utf8 = new TextEncoder();
const bytes = (value: string) => utf8.encode(value).byteLength;
// Control characters (C0, DEL, C1) and bidi overrides have no place in a token name.
const controlCharacters = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/u;

function byteString(name: string, min: number, max: number) {
  return z
    .string({ error: `${name} is required` })
    .refine((value) => bytes(value) >= min, { message: `${name} must not be empty` })
    .refine((value) => bytes(value) <= max, { message: `${name} must be at most ${max} bytes of UTF-8` })
    .refine((value) => !controlCharacters.test(value), {
      message: `${name} must not contain control characters`,
    });
}

function linkField(name: string) {
  return z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === '' ? null : value.trim()))
    .refine(
      (value) => {
        if (value === null) return true;
        if (value.length > 2048) return false;
        try {
          const url = new URL(value);
          return (
            (url.protocol === 'https:' || url.protocol === 'http:') &&
            url.username === '' &&
            url.password === ''
          );
        } catch {
          return false;
        }
      },
      { message: `${name} must be an http(s) URL without credentials, at most 2048 characters` },
    );
}

/**
 * The text fields of a metadata draft, with the spec's byte limits. `initial_supply` is integer
 * text in base units (18 decimals), within the launch contract's bounds, so a draft can always be
 * launched as uploaded.
 */
export const draftFieldsSchema = z.object({
  name: byteString('name', 1, 64),
  symbol: byteString('symbol', 1, 16),
  initial_supply: z
    .string({ error: 'initial_supply is required' })
    .regex(/^[1-9][0-9]{0,40}$/, {
      message: 'initial_supply must be a positive integer as decimal text (base units, 18 decimals)',
    })
    .transform((value) => BigInt(value))
    .refine((value) => value >= MIN_INITIAL_SUPPLY && value <= MAX_INITIAL_SUPPLY, {
      message: `initial_supply must be from ${MIN_INITIAL_SUPPLY} to ${MAX_INITIAL_SUPPLY} base units (1,000 to 10^15 tokens)`,
    }),
  description: z
    .string()
    .optional()
    .transform((value) => value ?? '')
    .refine((value) => bytes(value) <= 1000, { message: 'description must be at most 1000 bytes of UTF-8' }),
  website_url: linkField('website_url'),
  x_url: linkField('x_url'),
  telegram_url: linkField('telegram_url'),
  discord_url: linkField('discord_url'),
  image_url: z.string().optional(),
  creator: z
    .string()
    .optional()
    .refine((value) => value === undefined || /^0x[0-9a-fA-F]{40}$/.test(value), {
      message: 'creator must be a 0x-prefixed 20-byte hex address',
      params: { code: 'invalid_address' },
    })
    .transform((value) => value?.toLowerCase() ?? null),
});
export type DraftFields = z.output<typeof draftFieldsSchema>;
