import type { SearchText } from './worst-candidate-kit';
import { type Fixtures, seededTokenAddress } from './worst-fixtures';

/** The searches tried on /tokens (all of them) and on trending (the `trending` ones). */
export function searchTexts(fixtures: Fixtures): { all: SearchText[]; trending: SearchText[] } {
  const plain = (value: string, note?: string): SearchText => ({
    value,
    shown: `search=${JSON.stringify(value)}${note ? ` (${note})` : ''}`,
  });
  const zeros = (n: number) => '0'.repeat(n);
  const hexPrefixes = [
    '0x',
    ...[1, 2, 3, 4].map((n) => `0x${zeros(n)}`),
    ...[1, 2, 3, 4].map((n) => `0x${'f'.repeat(n)}`),
    `0x${zeros(36)}`,
    `0x${zeros(37)}`,
    `0x${zeros(37)}1`,
    `0x${zeros(35)}f`,
    seededTokenAddress(1),
  ].map((value) => plain(value, `${value.length - 2} hex digits`));
  const hexOnly = [
    '00',
    '000',
    '0000',
    'ab',
    'ba',
    'bad',
    'be',
    'ca',
    'cafe',
    'de',
    'dead',
    'f0',
    'fe',
    'face',
    '12',
    '123',
    '1234',
    '999999',
    zeros(40),
    seededTokenAddress(1).slice(2),
  ].map((value) => plain(value, 'hex only'));
  const oneCharacter = [...'abcdefghijklmnopqrstuvwxyz0123456789'].map((value) => plain(value));
  const dense = fixtures.prefixes.map(({ prefix, terms }) =>
    plain(prefix, `${terms.toLocaleString('en-US')} terms`),
  );
  const symbol = fixtures.commonSymbol;
  const exact = [
    plain(symbol.term, `exact symbol of ${symbol.tokens} tokens`),
    plain(symbol.term.toUpperCase(), 'exact symbol, upper case'),
  ];
  const shaped = [
    'pepe w',
    'moon frog',
    'moon frog 1',
    'moon.frog',
    'moon.',
    'a.b',
    '...',
    '   m   ',
    'm o',
    '_',
    '-',
    'moon_frog',
    'moon-frog',
    '1.5',
    ' 0 x',
  ].map((value) => plain(value));
  const unicode: SearchText[] = [
    { value: 'é', shown: 'search="é"' },
    { value: 'ﬃ', shown: 'search="ﬃ" (NFKC: ffi)' },
    { value: 'ｍｏｏｎ', shown: 'search=fullwidth "moon" (NFKC: moon)' },
    { value: '０ｘ０', shown: 'search=fullwidth "0x0" (NFKC: 0x0)' },
    { value: 'ﷺ'.repeat(21), shown: 'search=21 × U+FDFA (63 bytes; NFKC: 18 characters each)' },
    { value: 'é'.repeat(32), shown: 'search=32 × "é" (64 bytes)' },
    { value: `${'é'.repeat(32)}a`, shown: 'search=32 × "é" + "a" (65 bytes)' },
    { value: 'a'.repeat(64), shown: 'search=64 × "a"' },
    { value: 'a'.repeat(65), shown: 'search=65 × "a"' },
  ];
  const none = ['zzzz', 'xyz', 'q'].map((value) => plain(value, 'no match'));
  const refused = ['%', 'moon%', "a'b"].map((value) => plain(value));
  const all = [
    ...oneCharacter,
    ...hexPrefixes,
    ...hexOnly,
    ...dense,
    ...exact,
    ...shaped,
    ...unicode,
    ...none,
    ...refused,
  ];
  const trending = [
    ...['a', 'p', '0', '1'].map((value) => plain(value)),
    ...hexPrefixes.filter((text) => ['0x', '0x0000', `0x${zeros(37)}1`].includes(text.value)),
    ...dense,
    ...exact.slice(0, 1),
    ...shaped.slice(0, 2),
    ...none,
  ];
  const unique = (texts: SearchText[]) => [...new Map(texts.map((text) => [text.value, text])).values()];
  return { all: unique(all), trending: unique(trending) };
}
