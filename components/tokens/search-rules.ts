import { SEARCH_MAX_BYTES, searchCharacters } from '@/shared/search-text';

/** The API's search rules, checked before a request so a typo never becomes a 400. */
export function searchProblem(text: string): string | null {
  if (new TextEncoder().encode(text).length > SEARCH_MAX_BYTES)
    return `Search is limited to ${SEARCH_MAX_BYTES} bytes.`;
  if (!searchCharacters.test(text))
    return 'Search may contain only letters, numbers, spaces, dots, underscores and hyphens.';
  return null;
}
