import fc from 'fast-check';
import type { Corpus } from './corpus';
import { addressText, cursorText, draftText, pick, realAddress, recased, searchText } from './identifiers';
import type { JsonSchema } from './targets';
import { hostileText, percentEncode, wireText } from './text';

/** Integers as query text: in range, at and past the bounds, fractions, exponents, huge, junk. */
export function integerText(schema: JsonSchema, near: readonly number[] = []): fc.Arbitrary<string> {
  const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
  const max = typeof schema.maximum === 'number' ? schema.maximum : 2_000_000_000;
  return fc.oneof(
    { arbitrary: fc.integer({ min, max }).map(String), weight: 6 },
    { arbitrary: fc.constantFrom(min, max, min - 1, max + 1, 0, -1).map(String), weight: 3 },
    ...(near.length > 0
      ? [
          {
            arbitrary: fc
              .tuple(fc.constantFrom(...near), fc.integer({ min: -7200, max: 7200 }))
              .map(([n, d]) => String(n + d)),
            weight: 3,
          },
        ]
      : []),
    {
      arbitrary: fc.constantFrom(
        '1.5',
        '1.0',
        '1e2',
        '-0',
        '+5',
        ' 5',
        '5 ',
        '0x1f',
        '00020',
        '9007199254740993',
        '99999999999999999999999999',
        `${'9'.repeat(400)}`,
        '-9999999999',
        'NaN',
        'Infinity',
        '',
        'true',
        '٣',
        '５',
      ),
      weight: 3,
    },
    { arbitrary: fc.double({ noNaN: true }).map(String), weight: 1 },
    { arbitrary: fc.bigInt().map(String), weight: 1 },
  );
}

/** Enum values: each member, in the wrong case, padded, empty, or hostile text. */
export function enumText(members: readonly string[]): fc.Arbitrary<string> {
  const member = fc.constantFrom(...members);
  return fc.oneof(
    { arbitrary: member, weight: 6 },
    { arbitrary: member.map((m) => m.toUpperCase()), weight: 1 },
    { arbitrary: member.map((m) => ` ${m}`), weight: 1 },
    { arbitrary: member.map((m) => `${m}\u0000`), weight: 1 },
    { arbitrary: hostileText, weight: 2 },
  );
}

/**
 * Parameters that cannot be combined (DESIGN.md: search and view), so a request meant to be
 * valid carries at most the first of each pair.
 */
export const EXCLUSIVE_PARAMETERS: readonly [string, string][] = [['view', 'search']];

/** Parameters that bound a half-open range (chart `from` < `to`): a valid request orders them. */
export const ORDERED_PARAMETERS: readonly [string, string][] = [['from', 'to']];

/** The values of a valid request with each range in order (swapped, or the upper bound dropped). */
export function inOrder<T extends string | number>(values: Record<string, T>): Record<string, T> {
  const copy = { ...values };
  for (const [low, high] of ORDERED_PARAMETERS) {
    const a = copy[low];
    const b = copy[high];
    if (a === undefined || b === undefined || Number(a) < Number(b)) continue;
    if (Number(a) > Number(b)) {
      copy[low] = b;
      copy[high] = a;
    } else delete copy[high];
  }
  return copy;
}

/** What a parameter is, judged by its schema and name. */
export type ParameterKind = 'address' | 'cursor' | 'integer' | 'enum' | 'search' | 'draft' | 'text';

export function parameterKind(name: string, schema: JsonSchema): ParameterKind {
  if (name === 'cursor') return 'cursor';
  if (name === 'draft') return 'draft';
  if (name === 'search') return 'search';
  if (typeof schema.pattern === 'string' && schema.pattern.includes('{40}')) return 'address';
  if (Array.isArray(schema.enum)) return 'enum';
  if (schema.type === 'integer') return 'integer';
  return 'text';
}

/**
 * What a parameter's value is drawn for: the indexed data, whether the request is meant to be
 * valid, and the path it goes to (an address of a token route is a token's).
 */
export interface Draw {
  corpus: Corpus;
  valid?: boolean;
  context?: string;
}

/**
 * A parameter's value as a JS string (before encoding), for its kind. `valid`: one its schema
 * accepts, from the indexed data where there is some (real addresses in any case, cursors the
 * server signed, integers in range, enum members, prefixes of real words); otherwise any text of
 * its kind, hostile text included.
 */
export function parameterText(name: string, schema: JsonSchema, draw: Draw): fc.Arbitrary<string> {
  const { corpus, valid = false, context = '' } = draw;
  switch (parameterKind(name, schema)) {
    case 'address': {
      if (!valid) return addressText(corpus, context);
      const real = realAddress(corpus, context);
      return fc.oneof({ arbitrary: real, weight: 4 }, { arbitrary: real.chain(recased), weight: 1 });
    }
    case 'cursor':
      return valid ? pick(corpus.cursors, 'v1.W10.AAAAAAAAAAAAAAAA') : cursorText(corpus);
    case 'draft':
      return valid ? pick(corpus.drafts, 'd_AAAAAAAAAAAAAAAA') : draftText(corpus);
    case 'search': {
      if (!valid) return searchText(corpus);
      const word = pick(corpus.words, 'pepe');
      return fc.tuple(word, fc.nat()).map(([w, n]) => w.slice(0, 1 + (n % w.length)));
    }
    case 'enum':
      return valid ? fc.constantFrom(...(schema.enum as string[])) : enumText(schema.enum as string[]);
    case 'integer': {
      if (!valid)
        return integerText(schema, name === 'since' ? corpus.blocks : name === 'limit' ? [] : corpus.times);
      const min = typeof schema.minimum === 'number' ? schema.minimum : 0;
      const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
      const near = name === 'since' ? corpus.blocks : corpus.times;
      if (max !== undefined || near.length === 0)
        return fc.integer({ min, max: max ?? 2_000_000_000 }).map(String);
      return fc
        .tuple(fc.constantFrom(...near), fc.integer({ min: -86_400, max: 86_400 }))
        .map(([n, d]) => String(Math.max(min, n + d)));
    }
    default:
      return valid ? fc.string({ unit: fc.constantFrom(...'abcxyz019'), maxLength: 12 }) : hostileText;
  }
}

/**
 * A parameter's value as it goes on the wire. `valid`: one its schema accepts; otherwise the
 * value encoded from any text of its kind, or sometimes raw bad bytes.
 */
export function parameterWire(name: string, schema: JsonSchema, draw: Draw): fc.Arbitrary<string> {
  if (draw.valid) return parameterText(name, schema, draw).map(percentEncode);
  return fc.oneof(
    { arbitrary: parameterText(name, schema, draw).map(percentEncode), weight: 9 },
    { arbitrary: wireText, weight: 1 },
  );
}

/**
 * A parameter's value as JSON (tRPC input): the right type in and out of range, the wrong type,
 * null, nested values.
 */
export function parameterJson(name: string, schema: JsonSchema, draw: Draw): fc.Arbitrary<unknown> {
  const kind = parameterKind(name, schema);
  if (draw.valid)
    return parameterText(name, schema, draw).map((text) => (kind === 'integer' ? Number(text) : text));
  const typed: fc.Arbitrary<unknown> =
    kind === 'integer'
      ? fc.oneof(
          integerText(schema, draw.corpus.times).map((text) =>
            /^-?\d{1,15}$/.test(text) ? Number(text) : text,
          ),
          fc.double(),
          fc.constantFrom(1e308, -1e308, 2 ** 53 + 2, 0.5, -0),
        )
      : parameterText(name, schema, draw);
  return fc.oneof(
    { arbitrary: typed, weight: 8 },
    { arbitrary: fc.constantFrom(null, true, false, [], {}, 0, -1, '', [1, 2]), weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 1 },
  );
}
