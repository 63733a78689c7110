/**
 * `npm run bundle-budget` (after `next build`; CI runs it after the build step)
 *
 * First-load JavaScript per page, read from the build output: the root main files of
 * `.next/server/app/<route>/page/build-manifest.json` plus the client entry files of the root
 * layout and the page (`page_client-reference-manifest.js`), each gzipped as a server would send
 * it. Fails when a page is over its budget, so wallet code (wagmi, connectors) stays out of
 * pages that do not use a wallet.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const root = path.resolve(import.meta.dirname, '..');
const next = path.join(root, '.next');
/** kB as Next reports them (1,000 bytes), gzipped. */
const budgets: Record<string, number> = { '/': 200, '/tokens/[address]': 200 };

function entryFiles(route: string): string[] {
  const dir = path.join(next, 'server', 'app', route === '/' ? '' : route);
  const build = JSON.parse(readFileSync(path.join(dir, 'page', 'build-manifest.json'), 'utf8')) as {
    rootMainFiles: string[];
  };
  const manifestSource = readFileSync(path.join(dir, 'page_client-reference-manifest.js'), 'utf8');
  const json = manifestSource.slice(manifestSource.indexOf('= {') + 2).replace(/;\s*$/, '');
  const manifest = JSON.parse(json) as { entryJSFiles: Record<string, string[]> };
  const pageEntry = `[project]/app${route === '/' ? '' : route}/page`;
  // The root layout, its error boundary and the page: what the page's HTML loads as modules (the
  // polyfills are nomodule scripts that modern browsers skip).
  const entries = [
    manifest.entryJSFiles['[project]/app/layout'],
    manifest.entryJSFiles['[project]/app/error'],
    manifest.entryJSFiles[pageEntry],
  ];
  if (entries.some((files) => files === undefined)) throw new Error(`no client entry for ${pageEntry}`);
  return [...new Set([...build.rootMainFiles, ...entries.flat()])] as string[];
}

let failed = false;
console.log('first-load JavaScript, gzipped (kB = 1,000 bytes):');
for (const [route, budget] of Object.entries(budgets)) {
  const files = entryFiles(route);
  const bytes = files.reduce((sum, file) => sum + gzipSync(readFileSync(path.join(next, file))).length, 0);
  const kB = bytes / 1000;
  const over = kB > budget;
  failed ||= over;
  console.log(
    `  ${route.padEnd(18)} ${kB.toFixed(1).padStart(6)} kB of ${budget} kB in ${files.length} files${over ? '  OVER BUDGET' : ''}`,
  );
}
process.exit(failed ? 1 : 0);
