/**
 * Monotonic reads (docs/api.md, "Read replicas and monotonic reads"): every read answer says the
 * block its data is indexed through; a client sends the highest it has seen back, and no database
 * behind that block answers it.
 */
import { INDEXED_BLOCK_HEADER, MIN_BLOCK_HEADER, MIN_BLOCK_PARAM } from '../../shared/api/read-position';
import { AppError } from '../errors';

export { INDEXED_BLOCK_HEADER, MIN_BLOCK_HEADER, MIN_BLOCK_PARAM };

/** Far past any chain's height, and exact as a JavaScript number. */
const MAX_BLOCK = Number.MAX_SAFE_INTEGER;

/** Canonical decimal text only (the one spelling `String(n)` gives): `01`, `+1`, ` 1` are refused. */
function parseOne(field: string, text: string): number {
  if (!/^(?:0|[1-9]\d{0,15})$/.test(text) || Number(text) > MAX_BLOCK)
    throw new AppError('invalid_parameter', `${field} must be a non-negative integer block number`, [
      { field, message: 'must be a non-negative integer' },
    ]);
  return Number(text);
}

/**
 * The client's high-water block from the `min_block` parameter and the `X-Min-Indexed-Block`
 * header (the higher when both are given; undefined when neither is).
 * @throws AppError `invalid_parameter` for anything but one non-negative integer in each.
 */
export function parseMinBlock(
  header: string | readonly string[] | null | undefined,
  query?: URLSearchParams,
): number | undefined {
  let found: number | undefined;
  const values = query?.getAll(MIN_BLOCK_PARAM) ?? [];
  if (values.length > 1)
    throw new AppError('invalid_parameter', `${MIN_BLOCK_PARAM} must be given at most once`, [
      { field: MIN_BLOCK_PARAM, message: 'given more than once' },
    ]);
  if (values[0] !== undefined) found = parseOne(MIN_BLOCK_PARAM, values[0]);
  if (header !== null && header !== undefined) {
    // node:http joins repeated headers with ", "; a list is as ambiguous as a repeated parameter.
    const text = typeof header === 'string' ? header : header.join(',');
    if (text.includes(','))
      throw new AppError('invalid_parameter', `${MIN_BLOCK_HEADER} must be given at most once`, [
        { field: MIN_BLOCK_HEADER, message: 'given more than once' },
      ]);
    // A header's surrounding whitespace is not part of its value (RFC 9110, 5.5).
    const block = parseOne(MIN_BLOCK_HEADER, text.trim());
    found = found === undefined ? block : Math.max(found, block);
  }
  return found;
}

/**
 * The higher of two high-water blocks (a client's `min_block` and its cursor's block); undefined
 * when neither is known.
 */
export function highestBlock(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b);
}
