import fc from 'fast-check';

/**
 * Percent-encodes every code unit of `text` as its UTF-8 bytes, and a lone surrogate as the three
 * bytes WTF-8 gives it (`%ED%A0%80` for U+D800): what a hostile client can put on the wire, where
 * `encodeURIComponent` would throw.
 * @example percentEncode('a\u{D800}') // 'a%ED%A0%80'
 */
export function percentEncode(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (unit >= 0xd800 && unit <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(text.slice(i, i + 2));
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) {
      const bytes = [0xe0 | (unit >> 12), 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)];
      out += bytes.map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(text[i] as string);
    }
  }
  return out;
}

const BIDI = ['\u202e', '\u202d', '\u202a', '\u2066', '\u2067', '\u2068', '\u2069', '\u200f', '\u061c'];
const INVISIBLE = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u180e'];
const EMOJI = ['🚀', '👩‍👩‍👧‍👦', '🏳️‍🌈', '🇺🇸', '❤️', '\u{1F9FF}', 'é', '𝕏', 'Ａ'];
const CONTROL = ['\u0000', '\u0001', '\u0007', '\u001b', '\u007f', '\u0085', '\n', '\r\n', '\t'];
const SURROGATES = ['\ud800', '\udfff', '\udbff', '\udc00', '\ud83d'];
const SPACE = [' ', '  ', '\u00a0', '\u3000', '\u2028', '\u2029'];

/** Strings an API meets on the open internet, beyond what its schema expects. */
const SPECIMENS = [
  "' OR 1=1 --",
  '"; drop table tokens; --',
  '../../etc/passwd',
  '..',
  '.',
  '%',
  '\\',
  '/',
  '?',
  '#',
  '&',
  '=',
  '<script>alert(1)</script>',
  '$'.concat('{jndi:ldap://x}'),
  '{{7*7}}',
  '__proto__',
  'constructor',
  'toString',
  'null',
  'undefined',
  'true',
  '[]',
  '{}',
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e3',
  '1e400',
  '0x10',
  '0b1',
  ' 7',
  '7 ',
  '007',
  '1.5',
  '1,000',
  '９',
  '٣',
  '9007199254740993',
  `1${'0'.repeat(400)}`,
  '-1',
  '*',
  'v1',
  'v1..',
];

const piece = fc.oneof(
  { arbitrary: fc.constantFrom(...BIDI), weight: 2 },
  { arbitrary: fc.constantFrom(...INVISIBLE), weight: 2 },
  { arbitrary: fc.constantFrom(...EMOJI), weight: 2 },
  { arbitrary: fc.constantFrom(...CONTROL), weight: 2 },
  { arbitrary: fc.constantFrom(...SURROGATES), weight: 1 },
  { arbitrary: fc.constantFrom(...SPACE), weight: 1 },
  { arbitrary: fc.string({ maxLength: 8 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 6 }), weight: 2 },
);

/** A long run of one character (built cheaply, so thousands of runs stay fast). */
const longRun = (min: number, max: number) =>
  fc
    .tuple(fc.constantFrom('a', '0', 'é', '🚀', '\u200b', '%', ' ', 'Z'), fc.integer({ min, max }))
    .map(([char, count]) => char.repeat(count));

/**
 * Hostile text as a JS string: empty, whitespace, very long, bidi and zero-width marks, emoji,
 * NUL and other controls, lone surrogates, number look-alikes, injection specimens, or a mix.
 */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constant(''), weight: 10 },
  { arbitrary: fc.constantFrom(...SPECIMENS), weight: 25 },
  { arbitrary: fc.array(piece, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')), weight: 30 },
  { arbitrary: longRun(65, 1_200), weight: 10 },
  // Past node's 16 KiB head once percent-encoded: the 431 refusal.
  { arbitrary: longRun(6_000, 7_000), weight: 1 },
  { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 10 },
);

/**
 * Already percent-encoded fragments that are not valid UTF-8 or not valid escapes: a truncated
 * escape, a bare `%`, overlong and surrogate encodings, stray continuation bytes, NUL.
 */
export const malformedEscapes: fc.Arbitrary<string> = fc.constantFrom(
  '%',
  '%%',
  '%z',
  '%zz',
  '%G0',
  '%4',
  '%E0%A4',
  '%C0%AF',
  '%C0%80',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%F4%90%80%80',
  '%FF',
  '%FE%FF',
  '%80',
  '%00',
  '%0A',
  '%0D%0A',
  '%25',
  '%2525',
  '%2C',
  '%26',
  '%3D',
  '%23',
  '+',
  '%2B',
  '%20',
  ';',
);

/** A query or path value as it goes on the wire: encoded hostile text, raw bad escapes, or both. */
export const wireText: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: hostileText.map(percentEncode), weight: 5 },
  { arbitrary: malformedEscapes, weight: 2 },
  {
    arbitrary: fc
      .array(fc.oneof(hostileText.map(percentEncode), malformedEscapes), { minLength: 2, maxLength: 4 })
      .map((parts) => parts.join('')),
    weight: 2,
  },
);

/** Header-safe text (visible ASCII): what fetch lets a client put in a header value. */
export const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '0', '-1', '1e3', '99999999999999999999', 'abc', '*', 'W/"x"', ' 5 ', '0x10'),
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 }),
);
