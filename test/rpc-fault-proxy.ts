import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRandom } from '../server/chain/simulator/random';

export interface FaultRates {
  /** 429 with a Retry-After header. */
  rateLimit: number;
  serverError: number;
  /** Never answers (the client's timeout must fire). */
  hang: number;
  /** Destroys the connection without a response. */
  reset: number;
  /** Answers eth_blockNumber with a lower head than the real one (a lagging node). */
  staleHead: number;
  /** Refuse eth_getLogs spanning more blocks than this, as hosted RPCs do. */
  maxLogRange?: number;
}

export interface FaultProxy {
  url: string;
  counts: Record<Exclude<keyof FaultRates, 'maxLogRange'> | 'rangeRefused' | 'forwarded', number>;
  /** While set, eth_blockNumber answers this head: an indexer behind the proxy stops advancing. */
  freezeHead(block: number | undefined): void;
  /** While true, every request is answered 503: the node is down. */
  setDown(down: boolean): void;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => resolve(body));
    request.on('error', reject);
  });
}

/**
 * A loopback JSON-RPC proxy in front of a real node that injects faults at seeded rates, so
 * retry and backoff paths run against real HTTP failures, deterministically.
 */
export async function startFaultProxy(upstream: string, rates: FaultRates, seed = 1): Promise<FaultProxy> {
  const random = createRandom(seed);
  // Its own stream: how many other requests an indexer makes must not decide which heads lag.
  const headRandom = createRandom(seed + 1);
  const counts = {
    rateLimit: 0,
    serverError: 0,
    hang: 0,
    reset: 0,
    staleHead: 0,
    rangeRefused: 0,
    forwarded: 0,
  };
  const hanging = new Set<IncomingMessage>();
  let frozenHead: number | undefined;
  let down = false;
  const server: Server = createServer(async (request, response) => {
    const body = await readBody(request);
    const roll = random.next();
    let threshold = rates.rateLimit;
    if (roll < threshold) {
      counts.rateLimit++;
      response.writeHead(429, { 'retry-after': '0', 'content-type': 'text/plain' }).end('slow down');
      return;
    }
    threshold += rates.serverError;
    if (roll < threshold) {
      counts.serverError++;
      response.writeHead(random.chance(0.5) ? 502 : 500).end('upstream trouble');
      return;
    }
    threshold += rates.hang;
    if (roll < threshold) {
      counts.hang++;
      hanging.add(request);
      return;
    }
    threshold += rates.reset;
    if (roll < threshold) {
      counts.reset++;
      request.socket.destroy();
      return;
    }
    if (down) {
      response.writeHead(503).end('node down');
      return;
    }
    if (frozenHead !== undefined && body.includes('"eth_blockNumber"') && !body.startsWith('[')) {
      const { id } = JSON.parse(body) as { id: number };
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id, result: `0x${frozenHead.toString(16)}` }));
      return;
    }
    if (rates.maxLogRange !== undefined && body.includes('"eth_getLogs"')) {
      const { id, params } = JSON.parse(body) as {
        id: number;
        params: [{ fromBlock: string; toBlock: string }];
      };
      const span = Number.parseInt(params[0].toBlock, 16) - Number.parseInt(params[0].fromBlock, 16) + 1;
      if (span > rates.maxLogRange) {
        counts.rangeRefused++;
        response.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            jsonrpc: '2.0',
            id,
            error: { code: -32005, message: `block range exceeds ${rates.maxLogRange}` },
          }),
        );
        return;
      }
    }
    const upstreamResponse = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    let text = await upstreamResponse.text();
    if (body.includes('"eth_blockNumber"') && headRandom.next() < rates.staleHead) {
      const parsed = JSON.parse(text) as { result?: string };
      if (parsed.result) {
        const lagging = Math.max(0, Number.parseInt(parsed.result, 16) - headRandom.int(1, 20));
        parsed.result = `0x${lagging.toString(16)}`;
        text = JSON.stringify(parsed);
        counts.staleHead++;
      }
    }
    counts.forwarded++;
    response.writeHead(upstreamResponse.status, { 'content-type': 'application/json' }).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    counts,
    freezeHead: (block) => {
      frozenHead = block;
    },
    setDown: (value) => {
      down = value;
    },
    close: async () => {
      for (const request of hanging) request.socket.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
