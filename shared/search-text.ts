/**
 * Search normalization shared by the indexer (terms it stores) and the API (the prefix it
 * looks up): NFKC, lowercase, trimmed, inner whitespace collapsed to one space.
 */
export function normalizeSearchText(value: string): string {
  return value.normalize('NFKC').toLowerCase().trim().replace(/\s+/gu, ' ');
}

/** The spec's character set for `search`: letters, numbers, spaces, dots, underscores, hyphens. */
export const searchCharacters = /^[\p{L}\p{N} ._-]*$/u;

export const SEARCH_MAX_BYTES = 64;

/**
 * A search is answered only when its prefix matches at most this many search terms (and as many
 * address prefixes): every match is ranked and sorted by market cap, so the cost of a search is
 * the count of its matches. One letter or `0x` would sort every token; a broader search is refused
 * with 400 `invalid_parameter` (docs/api.md).
 */
export const SEARCH_MAX_MATCHES = 2000;

/** Search term kinds, in rank order. */
export const searchTermKind = { symbol: 0, name: 1, nameWord: 2 } as const;

/**
 * How well a token matches a search, best first: a term match of kind k ranks k + 1 (an exact
 * symbol 0), an address prefix last. A token matching several ways takes its best rank.
 */
export const searchRank = {
  exactSymbol: 0,
  symbolPrefix: searchTermKind.symbol + 1,
  namePrefix: searchTermKind.name + 1,
  nameWordPrefix: searchTermKind.nameWord + 1,
  addressPrefix: searchTermKind.nameWord + 2,
} as const;

/**
 * The terms a token is found by: its symbol, its whole name and each word of its name.
 * @example searchTermsFor('Pepe Coin', 'PEPE') // [{term:'pepe',kind:0},{term:'pepe coin',kind:1},{term:'coin',kind:2}]
 */
export function searchTermsFor(name: string, symbol: string): { term: string; kind: number }[] {
  const seen = new Set<string>();
  const terms: { term: string; kind: number }[] = [];
  const add = (term: string, kind: number) => {
    const key = `${kind}:${term}`;
    if (term === '' || seen.has(key)) return;
    seen.add(key);
    terms.push({ term, kind });
  };
  const normalizedName = normalizeSearchText(name);
  add(normalizeSearchText(symbol), searchTermKind.symbol);
  add(normalizedName, searchTermKind.name);
  // The first word is already a prefix of the whole name; later words need their own rows.
  for (const word of normalizedName.split(/[\s._-]+/u).slice(1)) add(word, searchTermKind.nameWord);
  return terms;
}

/** Escapes LIKE wildcards so `_` and `\` are taken literally (the character set excludes `%`). */
export function escapeLikePattern(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}
