import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * A JSON-RPC node on loopback for the tests of a file: up before them, closed after them. Each
 * request's body is read whole and parsed; `answer` writes the response for its id and first param.
 */
export function loopbackNodeForTests<Param>(
  answer: (id: number, param: Param, response: ServerResponse) => void,
): { readonly url: string } {
  const node = { url: '' };
  let server: Server | undefined;
  beforeAll(async () => {
    const listening = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        const { id, params } = JSON.parse(body) as { id: number; params: [Param] };
        answer(id, params[0], response);
      });
    });
    server = listening;
    await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', resolve));
    node.url = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });
  return node;
}
