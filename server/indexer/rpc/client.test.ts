import { describe, expect, it } from 'vitest';
import { loopbackNodeForTests } from '../../../test/indexer/loopback-node';
import { createRpcClient, RpcRangeError } from './client';

/** A JSON-RPC node on loopback whose eth_getLogs answer is `size` bytes, streamed in chunks. */
let chunksSent = 0;
const node = loopbackNodeForTests<{ size: number; declare: boolean }>((id, { size, declare }, response) => {
  const head = `{"jsonrpc":"2.0","id":${id},"result":"`;
  const tail = '"}';
  const filler = size - head.length - tail.length;
  response.writeHead(200, {
    'content-type': 'application/json',
    ...(declare ? { 'content-length': String(size) } : {}),
  });
  response.write(head);
  let left = filler;
  const pump = () => {
    while (left > 0) {
      const n = Math.min(left, 4096);
      left -= n;
      chunksSent++;
      if (!response.write('x'.repeat(n))) {
        response.once('drain', pump);
        return;
      }
    }
    response.end(tail);
  };
  response.on('close', () => {
    left = 0;
  });
  pump();
});

describe('RPC response size limit', () => {
  it('reads an answer within the limit', async () => {
    const result = await createRpcClient({ url: node.url, maxResponseBytes: 64 * 1024 }).request<string>(
      'eth_getLogs',
      [{ size: 60 * 1024, declare: false }],
    );
    // The answer minus its JSON-RPC envelope (whose id varies in length).
    expect(result).toMatch(/^x+$/);
    expect(result.length).toBeGreaterThan(60 * 1024 - 48);
  });

  it('refuses a larger answer as a range error before reading it all', async () => {
    chunksSent = 0;
    const request = createRpcClient({ url: node.url, maxResponseBytes: 64 * 1024 }).request('eth_getLogs', [
      { size: 64 * 2 ** 20, declare: false },
    ]);
    await expect(request).rejects.toBeInstanceOf(RpcRangeError);
    await expect(request).rejects.toThrow(/larger than/);
    // The server stops once the client hangs up: far fewer than the 16k chunks of the answer.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(chunksSent).toBeLessThan(4_000);
  });

  it('refuses an answer whose declared length is over the limit without reading it', async () => {
    await expect(
      createRpcClient({ url: node.url, maxResponseBytes: 64 * 1024 }).request('eth_getLogs', [
        { size: 1024 * 1024, declare: true },
      ]),
    ).rejects.toBeInstanceOf(RpcRangeError);
  });

  it('reads any size when the request lifts the limit', async () => {
    const client = createRpcClient({ url: node.url, maxResponseBytes: 64 * 1024, maxRetries: 0 });
    const result = await client.request<string>('eth_getLogs', [{ size: 1024 * 1024, declare: false }], {
      maxResponseBytes: Number.POSITIVE_INFINITY,
    });
    expect(result).toMatch(/^x+$/);
    expect(result.length).toBeGreaterThan(1024 * 1024 - 48);
  });
});
