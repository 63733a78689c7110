import { z } from 'zod';
import { isAddress } from '../address';

// The launch form in the browser validates with these same schemas (components/launch): keep this
// module free of Node APIs and server imports.

/** Contract limits (LaunchFactory.MIN_SUPPLY / MAX_SUPPLY), in base units (18 decimals). */
export const MIN_INITIAL_SUPPLY = 10n ** 21n;
export const MAX_INITIAL_SUPPLY = 10n ** 33n;
/**
 * The spec's image limit, "at most 5 MB", in SI megabytes: 5,000,000 bytes (docs/decisions.md),
 * for the file as uploaded, and again after re-encoding.
 */
export const MAX_IMAGE_BYTES = 5_000_000;
/** The limit as the spec and the launch form say it. */
export const MAX_IMAGE_TEXT = `${MAX_IMAGE_BYTES / 1_000_000} MB`;
/** Image types a draft accepts (judged by content, never by the client's Content-Type). */
export const imageFormats = {
  'image/png': { extension: 'png' },
  'image/jpeg': { extension: 'jpg' },
  'image/webp': { extension: 'webp' },
  'image/gif': { extension: 'gif' },
} as const;

const utf8 = new TextEncoder();
const bytes = (value: string) => utf8.encode(value).byteLength;
// `fatal`: a malformed sequence is an error, not a silent U+FFFD. `ignoreBOM`: a leading U+FEFF
// stays in the text (and is judged like any other character) instead of vanishing unseen.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes one multipart text field from its raw bytes, or `undefined` when they are not UTF-8
 * (RFC 3629: no stray continuation bytes, no 0xC0/0xC1/0xF5–0xFF, no overlong forms, no encoded
 * surrogates, nothing past U+10FFFF, no truncated sequence). Text fields are UTF-8 whatever
 * charset a part declares, as browsers send them.
 * @example decodeUtf8Field(new Uint8Array([0xc3, 0xa9])) // 'é'
 * @example decodeUtf8Field(new Uint8Array([0xc0, 0x80])) // undefined (overlong NUL)
 */
export function decodeUtf8Field(raw: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(raw);
  } catch {
    return undefined;
  }
}

const hex = (character: string) =>
  `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

// A lone surrogate has no UTF-8 form; only a string built in JavaScript (not decoded from bytes)
// can hold one.
const loneSurrogate = /\p{Cs}/u;
// C0 controls (tab and newline included), DEL and C1 controls.
const controlCharacter = /\p{Cc}/u;
// Characters that are invisible or reorder what is shown around them: every format character
// (Cf: zero-width space/joiners U+200B–U+200D, word joiner U+2060, BOM U+FEFF, bidi marks
// U+200E/U+200F/U+061C, embeddings and overrides U+202A–U+202E, isolates U+2066–U+2069, soft
// hyphen, tag characters), line and paragraph separators, the Braille blank, and every other
// default-ignorable code point (the blank "letters" used to fake an empty name: Hangul fillers,
// Khmer inherent vowels, the combining grapheme joiner) except variation selectors, which emoji
// such as ❤️ and CJK variants need.
const invisibleCharacter =
  /\p{Cf}|\p{Zl}|\p{Zp}|\u2800|(?![\ufe00-\ufe0f\u{e0100}-\u{e01ef}])\p{Default_Ignorable_Code_Point}/u;
// In free text: every control character except the line feed (a CR is allowed only in CRLF), and
// the bidi embeddings, overrides and isolates that can make text display in another order than
// it reads. Marks (U+200E/U+200F/U+061C) and joiners stay: right-to-left prose and emoji need them.
const proseControlCharacter = /[^\P{Cc}\n\r]|\r(?!\n)/u;
const bidiOverride = /[\u202a-\u202e\u2066-\u2069]/u;

/**
 * What is wrong with a token name or symbol as text, one message per broken rule (empty when it
 * is fine): blank after trimming, longer than `maxBytes` of UTF-8, or holding a control,
 * invisible or bidi formatting character. The value is never rewritten, so the launch carries
 * exactly the text the draft was checked with.
 * @example labelTextProblems('name', ' ', 64) // ['name must not be empty or only whitespace']
 */
export function labelTextProblems(field: string, value: string, maxBytes: number): string[] {
  const problems: string[] = [];
  if (value.trim() === '') problems.push(`${field} must not be empty or only whitespace`);
  if (bytes(value) > maxBytes) problems.push(`${field} must be at most ${maxBytes} bytes of UTF-8`);
  const surrogate = loneSurrogate.exec(value)?.[0];
  if (surrogate) problems.push(`${field} must be valid Unicode (lone surrogate ${hex(surrogate)})`);
  const control = controlCharacter.exec(value)?.[0];
  if (control) problems.push(`${field} must not contain control characters (found ${hex(control)})`);
  const invisible = invisibleCharacter.exec(value)?.[0];
  if (invisible)
    problems.push(
      `${field} must not contain invisible or bidirectional formatting characters (found ${hex(invisible)})`,
    );
  return problems;
}

/**
 * What is wrong with free text (the description) or a link: longer than `maxBytes` of UTF-8, a
 * control character other than a line break (links: any control character), or a bidi embedding,
 * override or isolate.
 * @example proseTextProblems('description', 'a\tb', 1000, { lineBreaks: true }) // ['description must not contain control characters other than line breaks (found U+0009)']
 */
export function proseTextProblems(
  field: string,
  value: string,
  maxBytes: number,
  { lineBreaks }: { lineBreaks: boolean },
): string[] {
  const problems: string[] = [];
  if (bytes(value) > maxBytes) problems.push(`${field} must be at most ${maxBytes} bytes of UTF-8`);
  const surrogate = loneSurrogate.exec(value)?.[0];
  if (surrogate) problems.push(`${field} must be valid Unicode (lone surrogate ${hex(surrogate)})`);
  const control = (lineBreaks ? proseControlCharacter : controlCharacter).exec(value)?.[0];
  if (control)
    problems.push(
      `${field} must not contain control characters${lineBreaks ? ' other than line breaks' : ''} (found ${hex(control)})`,
    );
  const override = bidiOverride.exec(value)?.[0];
  if (override)
    problems.push(
      `${field} must not contain bidi embedding, override or isolate characters (found ${hex(override)})`,
    );
  return problems;
}

const addProblems = (problems: string[], context: z.RefinementCtx) => {
  for (const message of problems) context.addIssue({ code: 'custom', message });
};

function labelField(name: string, maxBytes: number) {
  return z
    .string({ error: `${name} is required` })
    .superRefine((value, context) => addProblems(labelTextProblems(name, value, maxBytes), context));
}

function linkField(name: string) {
  return z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === '' ? null : value.trim()))
    .superRefine((value, context) => {
      if (value === null) return;
      addProblems(proseTextProblems(name, value, Number.POSITIVE_INFINITY, { lineBreaks: false }), context);
      if (!isWebLink(value))
        context.addIssue({
          code: 'custom',
          message: `${name} must be an http(s) URL without credentials, at most 2048 characters`,
        });
    });
}

function isWebLink(value: string): boolean {
  if (value.length > 2048) return false;
  try {
    const url = new URL(value);
    return (
      (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === ''
    );
  } catch {
    return false;
  }
}

/**
 * The text fields of a metadata draft, with the spec's byte limits. `initial_supply` is integer
 * text in base units (18 decimals), within the launch contract's bounds, so a draft can always be
 * launched as uploaded.
 */
export const draftFieldsSchema = z.object({
  name: labelField('name', 64),
  symbol: labelField('symbol', 16),
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
    .superRefine((value, context) =>
      addProblems(proseTextProblems('description', value, 1000, { lineBreaks: true }), context),
    ),
  website_url: linkField('website_url'),
  x_url: linkField('x_url'),
  telegram_url: linkField('telegram_url'),
  discord_url: linkField('discord_url'),
  image_url: z.string().optional(),
  creator: z
    .string()
    .optional()
    .refine((value) => value === undefined || isAddress(value), {
      message: 'creator must be a 0x-prefixed 20-byte hex address',
      params: { code: 'invalid_address' },
    })
    .transform((value) => value?.toLowerCase() ?? null),
});
export type DraftFields = z.output<typeof draftFieldsSchema>;
