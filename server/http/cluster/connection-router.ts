import type { Worker } from 'node:cluster';
import { createServer, type Server, type Socket } from 'node:net';
import { canonicalAddress } from '../client-address';
import type { LimitTable } from './limit-table';
import type { ConnectionHandoff } from './protocol';

export interface ConnectionRouter {
  /** Accepts client connections on the public port (start once the workers are ready). */
  server: Server;
  /** A worker that serves (ready) or stops serving (exited, stopping). */
  setServing(worker: Worker, serving: boolean): void;
}

/**
 * The primary's accept loop. Each client connection is taken paused (no byte read), counted
 * against its address's cap across all workers (only without a trusted proxy: behind one every
 * connection is the proxy's), and handed to the next serving worker in turn over IPC, the worker
 * holding the count until the socket closes. Past the cap, or with no worker serving, the
 * connection is closed at once.
 */
export function createConnectionRouter(options: {
  table: LimitTable;
  /** Open connections per address; undefined: not capped here (behind a trusted proxy). */
  connectionsPerAddress: number | undefined;
}): ConnectionRouter {
  const serving: Worker[] = [];
  let turn = 0;
  // noDelay as node:http sets it on the sockets it accepts itself; the option sticks to the fd.
  const server = createServer({ pauseOnConnect: true, noDelay: true }, (socket: Socket) => {
    // A client that resets before its socket is handed over is no error of the server's.
    socket.on('error', () => socket.destroy());
    if (serving.length === 0) {
      socket.destroy();
      return;
    }
    const worker = serving[turn++ % serving.length] as Worker;
    let slot = '';
    if (options.connectionsPerAddress !== undefined) {
      slot = `connections:${canonicalAddress(socket.remoteAddress)}`;
      if (!options.table.acquire(worker.id, slot, options.connectionsPerAddress)) {
        socket.destroy();
        return;
      }
    }
    const handoff: ConnectionHandoff = { type: 'launchdex:connection', slot };
    try {
      worker.send(handoff, socket, { keepOpen: false }, (error) => {
        if (!error) return;
        if (slot) options.table.release(worker.id, slot);
        socket.destroy();
      });
    } catch {
      if (slot) options.table.release(worker.id, slot);
      socket.destroy();
    }
  });
  return {
    server,
    setServing(worker, on) {
      const at = serving.indexOf(worker);
      if (on && at < 0) serving.push(worker);
      if (!on && at >= 0) serving.splice(at, 1);
    },
  };
}
