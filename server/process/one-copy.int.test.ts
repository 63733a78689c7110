import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const serverBundle = path.join(root, '.next', 'server');

/** Every JavaScript file Next.js built for the server side (pages, metadata routes, chunks). */
function bundleFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return bundleFiles(full);
    return entry.name.endsWith('.js') ? [full] : [];
  });
}

/**
 * Text only the named server module holds (a message it writes): found in Next's bundle, the
 * bundle would carry, and could instantiate, a second copy of it.
 */
const serverModules = {
  'server/db/client.ts (the database driver)': 'COPY needs a postgres.js or PGlite session',
  'server/http/rate-limit.ts (the rate limiter)': 'rate limiter store unavailable; requests let through',
  'server/http/cluster/worker-limits.ts': 'cluster primary did not answer limit checks in time',
  'server/stream/process-hub.ts (the stream hub)': 'stream poll failed; retrying',
  'server/api/rest/dispatch.ts (the read cache)': 'unexpected error in REST handler',
  'server/startup.ts (the embedded indexer)': 'embedded indexer starting',
  'server/process/handlers.ts (tRPC, objects, metrics)': 'launchdex-metrics-workers',
};

describe("one copy of each server module: Next's bundle has none", () => {
  it('the built pages reach the server only through the handed-over process object', () => {
    if (!existsSync(path.join(root, '.next', 'BUILD_ID')))
      throw new Error('no production build: run `npm run build` first');
    const texts = bundleFiles(serverBundle).map((file) => readFileSync(file, 'utf8'));
    // The control: the seam itself is in the bundle, so the search looks where the pages are.
    expect(texts.some((text) => text.includes('no server process: pages are served by'))).toBe(true);
    const copied = Object.entries(serverModules)
      .filter(([, marker]) => texts.some((text) => text.includes(marker)))
      .map(([module]) => module);
    expect(copied).toEqual([]);
  });
});
