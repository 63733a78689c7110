import { connect, createServer, type Socket } from 'node:net';

export interface StallProxy {
  port: number;
  /** Stops forwarding in both directions: bytes are held, connections stay open, nothing answers. */
  stall(): void;
  /** Forwards what was held and everything after it. */
  resume(): void;
  /** Every chunk is delivered this long after it arrived, in order (0: at once). */
  latency(ms: number): void;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy to `127.0.0.1:targetPort` that can stop forwarding while keeping every
 * connection open, a server that hangs (a paused Redis, a stuck disk, a partition: TCP holds the
 * bytes and delivers them once it heals) rather than one that is down, which a client notices at
 * once; or that delays every chunk, a slow network. With `handshake`, a new connection's first
 * bytes also wait out its TCP handshake, one round trip (twice the latency) after it opened,
 * as a client far from its server waits for the SYN-ACK before it can send.
 */
export async function startStallProxy(
  targetPort: number,
  options: { handshake?: boolean } = {},
): Promise<StallProxy> {
  let stalled = false;
  let delayMs = 0;
  let connections = 0;
  const flushes = new Set<() => void>();
  const sockets = new Set<Socket>();
  /** One direction of one connection: chunks leave in arrival order, each at its time. */
  const forward = (from: Socket, to: Socket, sendableAt = 0) => {
    const queue: { at: number; data: Buffer }[] = [];
    let timer: NodeJS.Timeout | undefined;
    const flush = () => {
      clearTimeout(timer);
      timer = undefined;
      if (stalled) return;
      const now = Date.now();
      while (queue.length > 0 && (queue[0]?.at ?? 0) <= now) {
        const next = queue.shift();
        if (next && !to.destroyed) to.write(next.data);
      }
      if (queue.length > 0) timer = setTimeout(flush, (queue[0]?.at ?? now) - now);
    };
    flushes.add(flush);
    from.on('close', () => {
      clearTimeout(timer);
      flushes.delete(flush);
    });
    from.on('data', (data: Buffer) => {
      queue.push({ at: Math.max(Date.now(), sendableAt) + delayMs, data });
      if (!timer) flush();
    });
  };
  const server = createServer((client) => {
    connections++;
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    forward(client, upstream, options.handshake ? Date.now() + 2 * delayMs : 0);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return {
    port: address.port,
    stall: () => {
      stalled = true;
    },
    resume: () => {
      stalled = false;
      for (const flush of flushes) flush();
    },
    latency: (ms) => {
      delayMs = ms;
    },
    get connections() {
      return connections;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
