import { describe, expect, it } from 'vitest';
import { createReadPosition, INDEXED_BLOCK_HEADER, MIN_BLOCK_HEADER } from './read-position';

describe('a client’s read position', () => {
  it('only rises, and ignores what is not a block number', () => {
    const position = createReadPosition();
    expect(position.block).toBeUndefined();
    for (const header of ['12', '9', null, '-3', 'abc', '1e3', '15']) position.see(header);
    expect(position.block).toBe(15);
  });

  it('sends the high-water block with each request and raises it from each answer', async () => {
    const sent: (string | null)[] = [];
    const answers = ['40', '38', null];
    const fetcher = (async (_input: RequestInfo | URL, init?: RequestInit) => {
      sent.push(new Headers(init?.headers).get(MIN_BLOCK_HEADER));
      const block = answers.shift();
      return new Response('{}', { headers: block ? { [INDEXED_BLOCK_HEADER]: block } : {} });
    }) as typeof fetch;
    const wrapped = createReadPosition().wrap(fetcher);
    for (let i = 0; i < 3; i++)
      await wrapped('/api/trpc/x', { headers: { 'content-type': 'application/json' } });
    expect(sent).toEqual([null, '40', '40']);
  });
});
