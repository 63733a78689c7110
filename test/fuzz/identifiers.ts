import fc from 'fast-check';
import type { Corpus } from './corpus';
import { hostileText } from './text';

const hexDigit = fc.constantFrom(...'0123456789abcdefABCDEF');
const hex = (length: number) => fc.string({ unit: hexDigit, minLength: length, maxLength: length });
export const pick = <T>(values: readonly T[], fallback: T) =>
  fc.constantFrom(...(values.length > 0 ? values : [fallback]));

/** Swaps the case of some letters of a string (a valid address in another case). */
export const recased = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((flips) => [...text].map((c, i) => (flips[i] ? c.toUpperCase() : c)).join(''));

/**
 * Real addresses of the kind a route or procedure is about (`context` is its path: tokens,
 * creators or wallets), or of any kind.
 */
export function realAddress(corpus: Corpus, context: string): fc.Arbitrary<string> {
  const pool = /creators/.test(context)
    ? corpus.creators
    : /wallets/.test(context)
      ? corpus.wallets
      : /tokens|stream/.test(context)
        ? corpus.tokens
        : [...corpus.tokens, ...corpus.creators, ...corpus.wallets];
  return pick(pool, `0x${'1'.repeat(40)}`);
}

/**
 * Addresses: real ones (exact and in other cases), unknown well-formed ones, and near misses
 * (wrong length, no or upper-case prefix, non-hex digits, padding), or hostile text.
 */
export function addressText(corpus: Corpus, context = ''): fc.Arbitrary<string> {
  const real = fc.oneof(realAddress(corpus, context), realAddress(corpus, ''));
  return fc.oneof(
    { arbitrary: real, weight: 6 },
    { arbitrary: real.chain(recased), weight: 2 },
    { arbitrary: hex(40).map((h) => `0x${h}`), weight: 2 },
    {
      arbitrary: fc.constantFrom(`0x${'0'.repeat(40)}`, `0x${'f'.repeat(40)}`, `0x${'F'.repeat(40)}`),
      weight: 1,
    },
    {
      arbitrary: fc.tuple(real, fc.integer({ min: 1, max: 8 })).map(([a, n]) => a.slice(0, a.length - n)),
      weight: 1,
    },
    { arbitrary: fc.tuple(real, hex(2)).map(([a, extra]) => `${a}${extra}`), weight: 1 },
    { arbitrary: real.map((a) => a.slice(2)), weight: 1 },
    { arbitrary: real.map((a) => `0X${a.slice(2)}`), weight: 1 },
    { arbitrary: real.map((a) => `${a.slice(0, 20)}g${a.slice(21)}`), weight: 1 },
    { arbitrary: real.map((a) => ` ${a}`), weight: 1 },
    { arbitrary: real.map((a) => `${a}\u200b`), weight: 1 },
    { arbitrary: hostileText, weight: 2 },
  );
}

const base64url = (text: string) => Buffer.from(text).toString('base64url');

/**
 * Cursors: real ones (of this list or a foreign one), and forged, truncated, bit-flipped,
 * re-versioned, re-keyed (payload edited, MAC kept), oversized ones, or hostile text.
 */
export function cursorText(corpus: Corpus): fc.Arbitrary<string> {
  const real = pick(corpus.cursors, 'v1.W10.AAAAAAAAAAAAAAAA');
  const flip = fc.tuple(real, fc.nat(), fc.constantFrom(...'AZaz09-_.')).map(([c, at, char]) => {
    const i = at % c.length;
    return `${c.slice(0, i)}${c[i] === char ? 'Q' : char}${c.slice(i + 1)}`;
  });
  const rekeyed = fc.tuple(real, fc.jsonValue({ maxDepth: 2 })).map(([c, key]) => {
    const [version, payload = '', mac = ''] = c.split('.');
    let list: unknown = 'tokens.new';
    try {
      list = (JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[])[0];
    } catch {}
    return `${version}.${base64url(JSON.stringify([list, key]))}.${mac}`;
  });
  const forged = fc
    .tuple(fc.jsonValue({ maxDepth: 3 }), fc.string({ unit: fc.constantFrom(...'AZaz09-_'), maxLength: 20 }))
    .map(([payload, mac]) => `v1.${base64url(JSON.stringify(payload))}.${mac}`);
  return fc.oneof(
    { arbitrary: real, weight: 6 },
    { arbitrary: flip, weight: 3 },
    { arbitrary: fc.tuple(real, fc.nat()).map(([c, n]) => c.slice(0, n % c.length)), weight: 2 },
    { arbitrary: real.map((c) => c.replace(/^v1/, 'v2')), weight: 1 },
    { arbitrary: real.map((c) => `${c}.`), weight: 1 },
    { arbitrary: rekeyed, weight: 2 },
    { arbitrary: forged, weight: 2 },
    { arbitrary: fc.constant(`v1.${'A'.repeat(600)}.${'B'.repeat(16)}`), weight: 1 },
    { arbitrary: hostileText, weight: 2 },
  );
}

/** Draft ids: real ones, well-formed unknown ones, and near misses. */
export function draftText(corpus: Corpus): fc.Arbitrary<string> {
  const real = pick(corpus.drafts, 'd_AAAAAAAAAAAAAAAA');
  const idChar = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-');
  return fc.oneof(
    { arbitrary: real, weight: 5 },
    { arbitrary: fc.string({ unit: idChar, minLength: 16, maxLength: 16 }).map((s) => `d_${s}`), weight: 2 },
    { arbitrary: real.map((d) => d.toUpperCase()), weight: 1 },
    { arbitrary: real.map((d) => d.slice(0, -1)), weight: 1 },
    { arbitrary: real.map((d) => `${d}x`), weight: 1 },
    { arbitrary: hostileText, weight: 2 },
  );
}

/** Search text: real words and their prefixes, valid characters, and hostile text. */
export function searchText(corpus: Corpus): fc.Arbitrary<string> {
  const word = pick(corpus.words, 'pepe');
  return fc.oneof(
    { arbitrary: fc.tuple(word, fc.nat()).map(([w, n]) => w.slice(0, 1 + (n % w.length))), weight: 4 },
    { arbitrary: word.map((w) => ` ${w.toUpperCase()} `), weight: 1 },
    { arbitrary: fc.constantFrom('0x', '0x6', ' ', '   ', '-', '.', '_', 'ｐｅｐ'), weight: 2 },
    { arbitrary: hostileText, weight: 4 },
  );
}
