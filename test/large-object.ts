import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { objectKeyFor } from '../server/objects/keys';

/**
 * Puts 4.5 MB of random bytes into the filesystem object store under `dataDir` (its `objects`
 * folder) before a server starts on it: more than loopback's socket buffers take from a reader
 * that reads nothing (~2–4 MB), so a slow reader of it holds its answer in the server.
 */
export function storeLargeObject(dataDir: string): { key: string; length: number; dir: string } {
  const objectsDir = path.join(dataDir, 'objects');
  mkdirSync(objectsDir, { recursive: true });
  const bytes = randomBytes(4_500_000);
  const key = objectKeyFor(bytes, 'png');
  writeFileSync(path.join(objectsDir, key), bytes);
  return { key, length: bytes.length, dir: objectsDir };
}
