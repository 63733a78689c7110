import { sql } from 'drizzle-orm';
import { escapeLikePattern, SEARCH_MAX_MATCHES } from '../../../../shared/search-text';
import type { Database } from '../../../db/client';
import { compiledReads } from '../../../db/compiled-read';
import { tokenSearchTerms, tokens } from '../../../db/schema';
import { AppError } from '../../../errors';

/**
 * The LIKE patterns of a search (its prefix among names and symbols; among addresses too when it
 * can start one), once the search is known not to be broad: a search whose prefix matches more
 * than SEARCH_MAX_MATCHES terms or addresses is refused before any match is ranked. Counting
 * stops at the bound (an index-only range scan of at most SEARCH_MAX_MATCHES + 1 entries per
 * side), so a broad prefix costs what a narrow one does.
 */
export async function narrowSearchPatterns(
  db: Database,
  given: string,
  search: string,
): Promise<{ pattern: string; addressPattern: string | null }> {
  const pattern = `${escapeLikePattern(search)}%`;
  const addressPattern = addressPrefixPattern(search);
  const [row] = await broadSearchCounts(
    db,
    { pattern, addressPattern },
    addressPattern === null ? 'terms' : 'both',
  );
  const terms = Number(row?.terms ?? 0);
  const addresses = Number(row?.addresses ?? 0);
  if (terms <= SEARCH_MAX_MATCHES && addresses <= SEARCH_MAX_MATCHES) return { pattern, addressPattern };
  const what = terms > SEARCH_MAX_MATCHES ? 'names and symbols' : 'addresses';
  const message = `search "${given}" matches more than ${SEARCH_MAX_MATCHES.toLocaleString('en-US')} ${what}: type more of it`;
  throw new AppError('invalid_parameter', message, [{ field: 'search', message }]);
}

/** The counts of narrowSearchPatterns, each stopped at the bound; addresses only for a hex search. */
const broadSearchCounts = compiledReads<
  { terms: number | string; addresses: number | string },
  'pattern' | 'addressPattern',
  'terms' | 'both'
>((param, variant) => {
  const bound = sql.raw(String(SEARCH_MAX_MATCHES + 1));
  return sql`select (select count(*) from (select 1 from ${tokenSearchTerms} where ${tokenSearchTerms.term} like ${param('pattern')} limit ${bound}) t) as terms,
      ${
        variant === 'terms'
          ? sql`0`
          : sql`(select count(*) from (select 1 from ${tokens} where ${tokens.address} like ${param('addressPattern')} limit ${bound}) a)`
      } as addresses`;
});

/** A search that can be the start of a hex address, as a LIKE pattern on `tokens.address`. */
function addressPrefixPattern(search: string): string | null {
  if (!/^(0x)?[0-9a-f]+$/.test(search) && search !== '0x') return null;
  return `${search.startsWith('0x') ? search : `0x${search}`}%`;
}
