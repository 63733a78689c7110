/**
 * Monotonic reads across instances and read replicas (docs/api.md, "Read replicas and monotonic
 * reads"): every read answer says the block its data is indexed through, and a client that sends
 * the highest one back is never answered from a database behind it.
 */
export const INDEXED_BLOCK_HEADER = 'x-indexed-through-block';
export const MIN_BLOCK_HEADER = 'x-min-indexed-block';
export const MIN_BLOCK_PARAM = 'min_block';

/** A client's high-water block: raised by every answer, sent with every request. */
export interface ReadPosition {
  /** The highest X-Indexed-Through-Block seen (undefined before the first answer). */
  readonly block: number | undefined;
  /** Takes an answer's header into account (ignored when absent or not a block number). */
  see(header: string | null): void;
  /** A fetch that sends the high-water block and raises it from each answer. */
  wrap(fetcher: typeof fetch): typeof fetch;
}

export function createReadPosition(): ReadPosition {
  let block: number | undefined;
  const position: ReadPosition = {
    get block() {
      return block;
    },
    see(header) {
      if (header === null || !/^\d{1,16}$/.test(header)) return;
      const seen = Number(header);
      if (block === undefined || seen > block) block = seen;
    },
    wrap(fetcher) {
      return async (input, init) => {
        const headers = new Headers(init?.headers);
        if (block !== undefined) headers.set(MIN_BLOCK_HEADER, String(block));
        const answer = await fetcher(input, { ...init, headers });
        position.see(answer.headers.get(INDEXED_BLOCK_HEADER));
        return answer;
      };
    },
  };
  return position;
}
