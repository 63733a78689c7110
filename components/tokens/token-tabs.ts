import type { TokenView } from '@/shared/api/tokens';

/**
 * Tokens per page of the home page's lists. Here, not in the client hook: a server component
 * importing a value from a 'use client' module gets a client reference, not the value.
 */
export const TOKEN_PAGE_SIZE = 20;

/** The home page's tabs: the four list views of the API, trending, and the browser's watchlist. */
export const tokenTabs = [
  { id: 'new', label: 'New' },
  { id: 'top', label: 'Top' },
  { id: 'near', label: 'Near graduation' },
  { id: 'linked', label: 'Linked' },
  { id: 'trending', label: 'Trending' },
  { id: 'watchlist', label: 'Watchlist' },
] as const satisfies readonly { id: TokenView | 'trending' | 'watchlist'; label: string }[];

export type TokenTab = (typeof tokenTabs)[number]['id'];
/** The tabs the API lists; the watchlist is read by address (components/watchlist). */
export type ListedTab = Exclude<TokenTab, 'watchlist'>;

export function parseTokenTab(value: string | null | undefined): TokenTab {
  return tokenTabs.find((tab) => tab.id === value)?.id ?? 'new';
}
