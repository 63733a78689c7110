import { z } from 'zod';
import { ADDRESS_PATTERN, isAddress, LOWERCASE_ADDRESS_PATTERN } from '../address';
import { withHint } from './openapi-hints';

/** Integer amount; bigint in code, decimal text on the wire. */
export const amount = withHint(z.bigint(), {
  type: 'string',
  pattern: '^[0-9]+$',
  description: 'Integer as decimal text',
  examples: ['1000000000000000000'],
});

export const addressOut = z
  .string()
  .regex(new RegExp(LOWERCASE_ADDRESS_PATTERN))
  .meta({ examples: ['0x5fbdb2315678afecb367f032d93f642f64180aa3'] });
export const hashOut = z.string().regex(/^0x[0-9a-f]{64}$/);
export const unixTime = z.number().int().nonnegative().meta({ description: 'Unix seconds' });
export const blockNumberOut = z.number().int().nonnegative();

/**
 * Input addresses accept any hex case and answer in lowercase. A malformed one is 400
 * `invalid_address` (not `invalid_parameter`), as DESIGN.md section 7 names it.
 */
export const addressParam = withHint(
  z
    .string()
    .refine(isAddress, {
      message: 'must be a 0x-prefixed 20-byte hex address',
      params: { code: 'invalid_address' },
    })
    .transform((value) => value.toLowerCase() as `0x${string}`),
  {
    type: 'string',
    pattern: ADDRESS_PATTERN,
    examples: ['0x5fbdb2315678afecb367f032d93f642f64180aa3'],
  },
);

/**
 * Canonical decimal text of an integer: the one spelling `String(n)` gives. Leading zeros
 * (`007`), a sign on zero (`-0`), a plus sign, exponents, spaces and hex are other spellings of
 * a number, and a parameter that took them would make equal requests look different (docs/api.md,
 * "Everywhere"). At most 16 digits: past that a JSON number is no longer exact.
 */
const CANONICAL_INTEGER = /^(?:0|-?[1-9]\d{0,15})$/;

/** The number a query string's canonical integer text names; anything else is left to fail the schema. */
function canonicalInteger(value: unknown): unknown {
  return typeof value === 'string' && CANONICAL_INTEGER.test(value) ? Number(value) : value;
}

/**
 * An integer parameter that accepts a JSON number (tRPC) or canonical decimal text (query
 * string). "1.5", "1e3", " 7", "0x10", "007", "-0", "+5" and "" are rejected rather than coerced.
 */
export function integerParam(options: { name: string; min: number; max: number; default: number }) {
  const message = `${options.name} must be an integer from ${options.min} to ${options.max}`;
  const base = z.preprocess(
    canonicalInteger,
    z
      .number({ error: message })
      .int({ error: message })
      .min(options.min, { error: message })
      .max(options.max, { error: message }),
  );
  return withHint(base.optional().default(options.default), {
    type: 'integer',
    minimum: options.min,
    maximum: options.max,
    default: options.default,
  });
}

/** Non-negative integer without an upper bound that matters (Unix seconds). */
export function unixSecondsParam(name: string, description: string) {
  return nonNegativeIntegerParam(`${name} must be a non-negative integer (Unix seconds)`, description);
}

/** A block number parameter: canonical decimal text of a non-negative integer. */
export function blockNumberParam(name: string, description: string) {
  return nonNegativeIntegerParam(
    `${name} must be a block number (a non-negative integer in decimal, no leading zeros)`,
    description,
  );
}

/** An optional non-negative safe integer, in canonical decimal text only, refused with `message`. */
function nonNegativeIntegerParam(message: string, description: string) {
  return withHint(
    z
      .preprocess(
        canonicalInteger,
        z
          .number({ error: message })
          .int({ error: message })
          .min(0, { error: message })
          .max(Number.MAX_SAFE_INTEGER, { error: message }),
      )
      .optional(),
    { type: 'integer', minimum: 0, description },
  );
}

/** The standard list `limit`: default 20, 1 to 100. */
export const listLimitParam = integerParam({ name: 'limit', min: 1, max: 100, default: 20 });

export const cursorParam = withHint(
  z
    .string()
    .refine((value) => value.length <= 512, {
      message: 'cursor is not valid',
      params: { code: 'invalid_cursor' },
    })
    .optional(),
  { type: 'string', description: 'Opaque; pass back `next_cursor` unchanged.' },
);

/** One address's record: its path names the address. */
export const addressInput = z.object({ address: addressParam });

/** A page of what belongs to an address (a token's trades, a creator's tokens, a wallet's holdings). */
export const addressPageInput = z.object({
  address: addressParam,
  limit: listLimitParam,
  cursor: cursorParam,
});
export type AddressPageInput = z.output<typeof addressPageInput>;

/**
 * A page of balances (a token's holders, a wallet's holdings) as they stood at the end of
 * `block`, answered from the indexed balance history; the latest when absent.
 */
export const balancesPageInput = addressPageInput.extend({
  block: blockNumberParam(
    'block',
    'The balances at the end of this block (at most the indexed block: `X-Indexed-Through-Block`); the latest when absent. A cursor belongs to the block it was issued at.',
  ),
});
export type BalancesPageInput = z.output<typeof balancesPageInput>;

/** Page envelope: `next_cursor` is always present, null on the last page. */
export function page<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}
