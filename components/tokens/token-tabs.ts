import type { TokenView } from '@/shared/api/tokens';

/**
 * Tokens per page of the home page's lists. Here, not in the client hook: a server component
 * importing a value from a 'use client' module gets a client reference, not the value.
 */
export const TOKEN_PAGE_SIZE = 20;

/** The home page's tabs: the four list views of the API plus trending. */
export const tokenTabs = [
  { id: 'new', label: 'New' },
  { id: 'top', label: 'Top' },
  { id: 'near', label: 'Near graduation' },
  { id: 'linked', label: 'Linked' },
  { id: 'trending', label: 'Trending' },
] as const satisfies readonly { id: TokenView | 'trending'; label: string }[];

export type TokenTab = (typeof tokenTabs)[number]['id'];

export function parseTokenTab(value: string | null | undefined): TokenTab {
  return tokenTabs.find((tab) => tab.id === value)?.id ?? 'new';
}
