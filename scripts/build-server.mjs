#!/usr/bin/env node
/**
 * `npm run build` (after `next build`): the production processes compiled to plain JavaScript in
 * dist/ (the web server, its page thread, the indexer and the webhook worker, the `npm start`
 * launcher), so nothing compiles TypeScript while serving; tsx stays for tests and one-shot
 * scripts. Dependencies stay in node_modules, except postgres.js, which is bundled with our
 * connection queue in place of its own (server/db/postgres-queue.ts: its queues grow by a slot
 * per query for the life of a pool; docs/decisions.md, "postgres.js pool queue").
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const postgresVersion = JSON.parse(
  readFileSync(path.join(root, 'node_modules/postgres/package.json'), 'utf8'),
).version;
// The queue replaces 3.4.9's: an upgrade is reviewed (does it still need it?) before it builds.
if (postgresVersion !== '3.4.9')
  throw new Error(`postgres.js is ${postgresVersion}: review server/db/postgres-queue.ts, written for 3.4.9`);

/** postgres.js's `./queue.js`, answered with ours; a build in which it was not is refused. */
let queuesReplaced = 0;
const postgresQueue = {
  name: 'postgres-queue',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\/queue\.js$/ }, (args) => {
      if (!args.importer.includes(`${path.sep}node_modules${path.sep}postgres${path.sep}`)) return undefined;
      queuesReplaced++;
      return { path: path.join(root, 'server/db/postgres-queue.ts') };
    });
  },
};

const started = performance.now();
const result = await build({
  absWorkingDir: root,
  entryPoints: {
    serve: 'scripts/serve.ts',
    'page-thread': 'server/pages/thread.ts',
    indexer: 'scripts/indexer.ts',
    webhooks: 'scripts/webhooks.ts',
    start: 'scripts/start.ts',
    // The benchmarks' floor, compiled as the server is, so the two compare on equal terms.
    'bench-floor': 'bench/floor.ts',
  },
  outdir: 'dist',
  // Every file in dist/ itself: a module finds the page thread beside it (server/worker-module.ts).
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  external: Object.keys(manifest.dependencies)
    .concat(Object.keys(manifest.devDependencies))
    .filter((name) => name !== 'postgres'),
  plugins: [postgresQueue],
  logLevel: 'warning',
  metafile: true,
});
if (queuesReplaced === 0)
  throw new Error("postgres.js's queue was not replaced: see server/db/postgres-queue.ts");
const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
console.log(
  `server compiled to dist/ in ${Math.round(performance.now() - started)} ms (${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1e6).toFixed(1)} MB)`,
);
