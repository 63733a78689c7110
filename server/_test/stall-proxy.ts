import { connect, createServer, type Socket } from 'node:net';

export interface StallProxy {
  port: number;
  /** Stops forwarding in both directions: bytes are held, connections stay open, nothing answers. */
  stall(): void;
  /** Forwards what was held and everything after it. */
  resume(): void;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy to `127.0.0.1:targetPort` that can stop forwarding while keeping every
 * connection open: a server that hangs (a paused Redis, a stuck disk) rather than one that is
 * down, which a client notices at once.
 */
export async function startStallProxy(targetPort: number): Promise<StallProxy> {
  let stalled = false;
  const held: { to: Socket; data: Buffer }[] = [];
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket) =>
    from.on('data', (data: Buffer) => {
      if (stalled) held.push({ to, data });
      else to.write(data);
    });
  const server = createServer((client) => {
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
    forward(client, upstream);
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
      for (const { to, data } of held.splice(0)) if (!to.destroyed) to.write(data);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
