import { createHash } from 'node:crypto';
import { z } from 'zod';
import { LOWERCASE_ADDRESS_PATTERN } from '../../shared/address';
import { searchRank } from '../../shared/search-text';
import { TRENDING_SCORE_MAX } from '../tokens/trending';

/**
 * What each value of a keyset cursor may hold: at most the range of the column it is compared
 * with (server/db/schema, drizzle/*.sql), narrowed to what a row can actually hold. The MAC proves
 * the server made a cursor only while its key stays secret; these checks hold even when it does
 * not (a leaked key, a cursor of an older format): an out-of-range value is a 400
 * `invalid_cursor`, never a PostgreSQL cast error (500). One schema per kind of value; the
 * lists' keys compose them below.
 */

/** int4: `integer` columns. */
export const INT4_MAX = 2 ** 31 - 1;

/**
 * `bigint` block numbers (blocks, `created_block`), read in number mode: exact up to 2^53 - 1,
 * far below int8's limit.
 */
export const blockNumberKey = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

/** `integer` log index within its block (`log_index`, `created_log_index`). */
export const logIndexKey = z.number().int().min(0).max(INT4_MAX);

/**
 * `numeric(78,0)` amounts (market cap, balance) as canonical decimal text: no sign, no leading
 * zero, at most 78 digits, which is what the column can hold.
 */
export const uint256Key = z.string().regex(/^(0|[1-9][0-9]{0,77})$/);

/** `numeric(78,0)` amounts that may be negative (realized PnL), canonical decimal text. */
export const int256Key = z.string().regex(/^(0|-?[1-9][0-9]{0,77})$/);

/** `text` addresses as the indexer stores them: lowercase 0x-hex, 20 bytes. */
export const addressKey = z.string().regex(new RegExp(LOWERCASE_ADDRESS_PATTERN));

/** `integer progress_bps`: graduation progress, capped at 10000 by the indexer. */
export const progressBpsKey = z.number().int().min(0).max(10_000);

/**
 * `double precision trending_score` of a listed token: the trending list holds only scores
 * above 0, and no score exceeds {@link TRENDING_SCORE_MAX}. (JSON has no NaN or Infinity.)
 */
export const trendingScoreKey = z.number().positive().max(TRENDING_SCORE_MAX);

/** A search match's rank (server/tokens/search-text.ts `searchRank`). */
export const searchRankKey = z.number().int().min(searchRank.exactSymbol).max(searchRank.addressPrefix);

/** (block, log index): newest launches first (`tokens.new`, `tokens.linked`, a creator's tokens), trades, activity. */
export const chainPositionKey = z.tuple([blockNumberKey, logIndexKey]);

/** (amount, address): `tokens.top` (market cap, token) and holders (balance, wallet). */
export const amountAndAddressKey = z.tuple([uint256Key, addressKey]);

/** (realized PnL, volume or position; wallet): a token's traders. */
export const signedAmountAndAddressKey = z.tuple([int256Key, addressKey]);

/** (progress, token): `tokens.near`. */
export const progressAndAddressKey = z.tuple([progressBpsKey, addressKey]);

/** (score, token): trending. */
export const trendingKey = z.tuple([trendingScoreKey, addressKey]);

/** (rank, market cap, token): a search. */
export const searchKey = z.tuple([searchRankKey, uint256Key, addressKey]);

/** (token): a wallet's holdings by token address. */
export const addressOnlyKey = z.tuple([addressKey]);

/**
 * The list name of a search's pages: a digest of the normalized search text, so a cursor of one
 * search is foreign to every other search, and its length stays fixed even when NFKC expands a
 * 64-byte search many times over.
 * @example searchListName('tokens.search', 'pepe') // 'tokens.search:…22 base64url characters'
 */
export function searchListName(list: string, normalizedSearch: string): string {
  return `${list}:${createHash('sha256').update(normalizedSearch).digest('base64url').slice(0, 22)}`;
}
