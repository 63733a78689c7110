import { describe, expect, it } from 'vitest';
import { escapeLikePattern, normalizeSearchText, searchCharacters, searchTermsFor } from './search-text';

describe('search normalization', () => {
  it('applies NFKC, lowercases, trims and collapses spaces', () => {
    expect(normalizeSearchText('  ＰＥＰＥ   Coin ')).toBe('pepe coin');
    expect(normalizeSearchText('ﬁre')).toBe('fire');
  });

  it('accepts the spec character set, including non-Latin letters', () => {
    for (const ok of ['pepe', 'Pepe Coin 2', 'a.b_c-d', 'ドージ', 'ß', ''])
      expect(searchCharacters.test(ok), ok).toBe(true);
    for (const bad of ['$', '%', 'a*', "o'neil", '<b>', 'a/b', 'tab\t'])
      expect(searchCharacters.test(bad), bad).toBe(false);
  });

  it('indexes symbol, whole name and each later word of the name', () => {
    expect(searchTermsFor('Pepe the Frog', 'PEPE')).toEqual([
      { term: 'pepe', kind: 0 },
      { term: 'pepe the frog', kind: 1 },
      { term: 'the', kind: 2 },
      { term: 'frog', kind: 2 },
    ]);
  });

  it('escapes LIKE wildcards so they match literally', () => {
    expect(escapeLikePattern('a_b\\c%')).toBe('a\\_b\\\\c\\%');
  });
});
