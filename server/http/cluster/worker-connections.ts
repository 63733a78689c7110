import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { WorkerLimits } from './limit-client';
import { isConnectionHandoff, type WorkerReady } from './protocol';

/**
 * Makes `server` serve the client connections the cluster primary hands to this worker, and tells
 * the primary it is ready. The primary accepts every connection itself (so it can cap connections
 * per address across workers before a byte is read) and passes the socket over IPC, as node's
 * own round-robin cluster scheduler does. `limits` are the process's (the connection slots it gives back).
 *
 * @dev node:http arms its header and request deadlines (and `closeAllConnections`) only on a
 * listening server, so the server listens too: on a Unix socket whose path is removed as soon as
 * it listens, so nothing can ever connect to it and nothing is left behind.
 */
export async function serveHandedConnections(server: Server, limits: WorkerLimits): Promise<void> {
  const dir = mkdtempSync(path.join(tmpdir(), 'launchdex-worker-'));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // exclusive: this worker's own handle, not one shared through the primary.
      server.listen({ path: path.join(dir, 'http.sock'), exclusive: true }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.on('message', (message: unknown, handle: unknown) => {
    if (!isConnectionHandoff(message)) return;
    // An empty slot: not counted (behind a trusted proxy), nothing to give back.
    const release = () => {
      if (message.slot) limits.release(message.slot);
    };
    if (!(handle instanceof Socket)) {
      release();
      return;
    }
    handle.once('close', release);
    server.emit('connection', handle);
  });
  const ready: WorkerReady = { type: 'launchdex:ready' };
  process.send?.(ready);
}
