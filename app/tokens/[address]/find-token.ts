import { cache } from 'react';
import { pageServices } from '@/server/handover';
import { isAddress } from '@/shared/address';
import type { TokenDetail } from '@/shared/api/tokens';

/**
 * A token's detail for the page, its metadata and its share card, or null when the address is
 * malformed or not a launched token. Cached per request: the page and its metadata read it once.
 */
export const findToken = cache(async (address: string): Promise<TokenDetail | null> => {
  if (!isAddress(address)) return null;
  try {
    return await pageServices().reads.token(address);
  } catch (error) {
    if (pageServices().isErrorCode(error, 'not_found')) return null;
    throw error;
  }
});
