import { cache } from 'react';
import { createRequestContext } from '@/server/api/context';
import { createCaller } from '@/server/api/root';
import { isAppErrorCode } from '@/server/errors';
import { isAddress } from '@/shared/address';
import type { TokenDetail } from '@/shared/api/tokens';

/**
 * A token's detail for the page, its metadata and its share card, or null when the address is
 * malformed or not a launched token. Cached per request: the page and its metadata read it once.
 */
export const findToken = cache(async (address: string): Promise<TokenDetail | null> => {
  if (!isAddress(address)) return null;
  try {
    return await createCaller(await createRequestContext()).tokens.byAddress({ address });
  } catch (error) {
    if (isAppErrorCode(error, 'not_found')) return null;
    throw error;
  }
});
