import { describe, expect, it } from 'vitest';
import { decodeUtf8Field, draftFieldsSchema, labelTextProblems, proseTextProblems } from './draft-fields';

const codeOf = (character: string) =>
  `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
const valid = { name: 'Rocket', symbol: 'RKT', initial_supply: (10n ** 27n).toString() };

/** The fields the schema refuses for `fields`, each with its messages. */
function refusals(fields: Record<string, string>): Record<string, string[]> {
  const result = draftFieldsSchema.safeParse(fields);
  if (result.success) return {};
  const byField: Record<string, string[]> = {};
  for (const issue of result.error.issues) {
    const field = String(issue.path[0]);
    byField[field] = [...(byField[field] ?? []), issue.message];
  }
  return byField;
}

describe('decodeUtf8Field: text fields are strict UTF-8, judged on the raw bytes', () => {
  it.each([
    ['ASCII', [0x52, 0x4b, 0x54], 'RKT'],
    ['two-byte é', [0xc3, 0xa9], 'é'],
    ['three-byte €', [0xe2, 0x82, 0xac], '€'],
    ['four-byte 🚀', [0xf0, 0x9f, 0x9a, 0x80], '🚀'],
    ['the last code point U+10FFFF', [0xf4, 0x8f, 0xbf, 0xbf], '\u{10ffff}'],
    ['U+FFFD sent as itself', [0xef, 0xbf, 0xbd], '\ufffd'],
    ['nothing', [], ''],
  ])('decodes %s', (_case, raw, text) => {
    expect(decodeUtf8Field(new Uint8Array(raw))).toBe(text);
  });

  it('keeps a leading byte order mark as U+FEFF instead of dropping it unseen', () => {
    expect(decodeUtf8Field(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('\ufeffA');
  });

  it.each([
    ['0xff, never valid', [0x41, 0xff, 0x42]],
    ['0xfe, never valid', [0xfe]],
    ['0xc0 0x80, the overlong NUL', [0xc0, 0x80]],
    ['0xc1 0xbf, an overlong 2-byte form', [0xc1, 0xbf]],
    ['0xe0 0x80 0xaf, an overlong "/"', [0xe0, 0x80, 0xaf]],
    ['0xf0 0x82 0x82 0xac, an overlong €', [0xf0, 0x82, 0x82, 0xac]],
    ['0xed 0xa0 0x80, an encoded high surrogate (CESU)', [0xed, 0xa0, 0x80]],
    ['0xed 0xbf 0xbf, an encoded low surrogate', [0xed, 0xbf, 0xbf]],
    ['an encoded surrogate pair for 🚀 (CESU-8)', [0xed, 0xa0, 0xbd, 0xed, 0xba, 0x80]],
    ['0xf4 0x90 0x80 0x80, past U+10FFFF', [0xf4, 0x90, 0x80, 0x80]],
    ['0xf5, a lead byte past U+10FFFF', [0xf5, 0x80, 0x80, 0x80]],
    ['a stray continuation byte 0x80', [0x41, 0x80]],
    ['a truncated 2-byte sequence at the end', [0x41, 0xc3]],
    ['a truncated 3-byte sequence at the end', [0xe2, 0x82]],
    ['a truncated 4-byte sequence at the end', [0xf0, 0x9f, 0x9a]],
    ['a truncated sequence followed by ASCII', [0xe2, 0x82, 0x41]],
    ['a lead byte followed by another lead byte', [0xc3, 0xc3, 0xa9]],
  ])('refuses %s', (_case, raw) => {
    expect(decodeUtf8Field(new Uint8Array(raw))).toBeUndefined();
  });
});

describe('labelTextProblems: the rules for a token name and symbol', () => {
  it.each(['Rocket', 'Été', 'ロケット', 'PEPE 🐸', 'I ❤️ NY', 'A.B-C_D', 'مرحبا', 'a\u00a0b'])(
    'accepts %j',
    (value) => {
      expect(labelTextProblems('name', value, 64)).toEqual([]);
    },
  );

  it.each([
    ['empty', ''],
    ['one space', ' '],
    ['spaces', '     '],
    ['a no-break space', '\u00a0'],
    ['an ideographic space', '\u3000'],
    ['an em space and a thin space', '\u2003\u2009'],
  ])('refuses a name that is %s as blank', (_case, value) => {
    expect(labelTextProblems('name', value, 64)).toContain('name must not be empty or only whitespace');
  });

  const controls: [string, string][] = [
    ['NUL U+0000', '\u0000'],
    ['tab U+0009', '\t'],
    ['line feed U+000A', '\n'],
    ['carriage return U+000D', '\r'],
    ['escape U+001B', '\u001b'],
    ['unit separator U+001F', '\u001f'],
    ['DEL U+007F', '\u007f'],
    ['C1 U+0080', '\u0080'],
    ['C1 NEL U+0085', '\u0085'],
    ['C1 CSI U+009B', '\u009b'],
    ['C1 U+009F', '\u009f'],
  ];
  it.each(controls)('refuses the control character %s in a name and a symbol', (_case, character) => {
    expect(labelTextProblems('name', `Roc${character}ket`, 64)).toEqual([
      `name must not contain control characters (found ${codeOf(character)})`,
    ]);
    expect(labelTextProblems('symbol', `R${character}K`, 16)).toHaveLength(1);
  });

  const invisible: [string, string][] = [
    ['zero-width space U+200B', '\u200b'],
    ['zero-width non-joiner U+200C', '\u200c'],
    ['zero-width joiner U+200D', '\u200d'],
    ['word joiner U+2060', '\u2060'],
    ['invisible separator U+2063', '\u2063'],
    ['byte order mark U+FEFF', '\ufeff'],
    ['soft hyphen U+00AD', '\u00ad'],
    ['Mongolian vowel separator U+180E', '\u180e'],
    ['combining grapheme joiner U+034F', '\u034f'],
    ['Khmer inherent vowel U+17B4', '\u17b4'],
    ['Mongolian free variation selector U+180B', '\u180b'],
    ['Hangul filler U+3164', '\u3164'],
    ['halfwidth Hangul filler U+FFA0', '\uffa0'],
    ['Braille blank U+2800', '\u2800'],
    ['tag character U+E0041', '\u{e0041}'],
    ['line separator U+2028', '\u2028'],
    ['paragraph separator U+2029', '\u2029'],
    ['left-to-right mark U+200E', '\u200e'],
    ['right-to-left mark U+200F', '\u200f'],
    ['Arabic letter mark U+061C', '\u061c'],
    ['LRE U+202A', '\u202a'],
    ['RLE U+202B', '\u202b'],
    ['PDF U+202C', '\u202c'],
    ['LRO U+202D', '\u202d'],
    ['RLO U+202E', '\u202e'],
    ['LRI U+2066', '\u2066'],
    ['RLI U+2067', '\u2067'],
    ['FSI U+2068', '\u2068'],
    ['PDI U+2069', '\u2069'],
  ];
  it.each(invisible)(
    'refuses the invisible or bidi character %s in a name and a symbol',
    (_case, character) => {
      expect(labelTextProblems('name', `Roc${character}ket`, 64)).toEqual([
        `name must not contain invisible or bidirectional formatting characters (found ${codeOf(character)})`,
      ]);
      expect(labelTextProblems('symbol', `R${character}K`, 16)).toHaveLength(1);
    },
  );

  it('refuses a name made only of an invisible character as blank-looking, not as whitespace', () => {
    // Zero-width characters are not whitespace to trim(); they are refused by the character rule.
    expect(labelTextProblems('name', '\u200b', 64)).toEqual([
      'name must not contain invisible or bidirectional formatting characters (found U+200B)',
    ]);
    expect(labelTextProblems('name', '\u3164', 64)).toHaveLength(1);
  });

  it('refuses a lone surrogate, which has no UTF-8 form', () => {
    expect(labelTextProblems('name', 'a\ud800b', 64)).toEqual([
      'name must be valid Unicode (lone surrogate U+D800)',
    ]);
    expect(labelTextProblems('name', 'a\udc00', 64)).toHaveLength(1);
    expect(labelTextProblems('name', '🚀', 64)).toEqual([]);
  });

  it('measures the limit in UTF-8 bytes, not characters', () => {
    expect(labelTextProblems('symbol', 'é'.repeat(8), 16)).toEqual([]);
    expect(labelTextProblems('symbol', `${'é'.repeat(8)}x`, 16)).toEqual([
      'symbol must be at most 16 bytes of UTF-8',
    ]);
    expect(labelTextProblems('symbol', '🚀🚀🚀🚀', 16)).toEqual([]);
    expect(labelTextProblems('symbol', '🚀🚀🚀🚀x', 16)).toHaveLength(1);
  });

  it('reports every broken rule at once', () => {
    expect(labelTextProblems('symbol', `\t${'x'.repeat(16)}\u202e`, 16)).toHaveLength(3);
  });
});

describe('proseTextProblems: the rules for a description and links', () => {
  it.each([
    ['line feeds', 'first line\nsecond line\n\nthird'],
    ['CRLF line breaks (what an HTML form sends)', 'first\r\nsecond'],
    ['right-to-left prose with marks', 'שלום\u200f world'],
    ['an emoji ZWJ sequence', 'built by 👩\u200d💻'],
    ['nothing', ''],
  ])('accepts a description with %s', (_case, value) => {
    expect(proseTextProblems('description', value, 1000, { lineBreaks: true })).toEqual([]);
  });

  it.each([
    ['a tab', 'a\tb', 'U+0009'],
    ['a lone carriage return', 'a\rb', 'U+000D'],
    ['a trailing carriage return', 'a\r', 'U+000D'],
    ['NUL', 'a\u0000b', 'U+0000'],
    ['escape (terminal sequences)', '\u001b[31mred', 'U+001B'],
    ['a vertical tab', 'a\u000bb', 'U+000B'],
    ['DEL', 'a\u007f', 'U+007F'],
    ['a C1 control', 'a\u0085b', 'U+0085'],
  ])('refuses a description with %s', (_case, value, code) => {
    expect(proseTextProblems('description', value, 1000, { lineBreaks: true })).toEqual([
      `description must not contain control characters other than line breaks (found ${code})`,
    ]);
  });

  it.each(['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'])(
    'refuses the bidi embedding, override or isolate %j in a description',
    (character) => {
      expect(
        proseTextProblems('description', `safe ${character}txt.exe`, 1000, { lineBreaks: true }),
      ).toHaveLength(1);
    },
  );

  it('refuses line breaks in a link, and measures the description in bytes', () => {
    expect(proseTextProblems('website_url', 'https://a.example/\nx', 2048, { lineBreaks: false })).toEqual([
      'website_url must not contain control characters (found U+000A)',
    ]);
    expect(proseTextProblems('description', 'é'.repeat(500), 1000, { lineBreaks: true })).toEqual([]);
    expect(proseTextProblems('description', `${'é'.repeat(500)}x`, 1000, { lineBreaks: true })).toEqual([
      'description must be at most 1000 bytes of UTF-8',
    ]);
  });
});

describe('draftFieldsSchema: one issue per broken rule, on the field that broke it', () => {
  it('accepts a plain draft and keeps the text exactly as given', () => {
    const parsed = draftFieldsSchema.parse({ ...valid, name: ' Spaced Out ', description: 'a\r\nb' });
    expect(parsed.name).toBe(' Spaced Out ');
    expect(parsed.description).toBe('a\r\nb');
  });

  it.each([
    ['a blank name', { name: '   ' }, 'name'],
    ['a blank symbol', { symbol: '\t' }, 'symbol'],
    ['a name with a zero-width space', { name: 'Ro\u200bcket' }, 'name'],
    ['a symbol with a right-to-left override', { symbol: 'R\u202eK' }, 'symbol'],
    ['a symbol with a newline', { symbol: 'R\nK' }, 'symbol'],
    ['a description with a bidi isolate', { description: 'a\u2066b' }, 'description'],
    ['a description with a tab', { description: 'a\tb' }, 'description'],
    ['a link with a bidi override', { website_url: 'https://a.example/\u202egnp.exe' }, 'website_url'],
    ['a link with an inner newline', { x_url: 'https://x.com/a\nb' }, 'x_url'],
  ])('refuses %s', (_case, change, field) => {
    expect(Object.keys(refusals({ ...valid, ...change }))).toEqual([field]);
  });

  it('names every refused field in one answer', () => {
    expect(
      Object.keys(refusals({ ...valid, name: '', symbol: 'A\u200dB', description: '\u0007' })).sort(),
    ).toEqual(['description', 'name', 'symbol']);
  });
});
