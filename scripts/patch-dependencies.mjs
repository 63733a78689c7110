#!/usr/bin/env node
/**
 * Mends installed dependencies where a defect of theirs costs the product and no fixed release
 * exists (run by `postinstall`, so `npm ci` always leaves them mended; docs/decisions.md, "postgres.js
 * pool queue"). Each patch names the exact version and text it replaces: a release that changed
 * the file fails the install loudly instead of being patched blind, and whoever upgrades reviews
 * whether the patch is still needed. Running it twice changes nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const modules = fileURLToPath(new URL('../node_modules/', import.meta.url));

/**
 * postgres.js 3.4.9 keeps each connection queue (open, busy, ...) in an array it only ever empties
 * when the queue is drained completely: `shift` leaves a hole and moves an index, and `remove`
 * scans the whole array from 0. A pool that always has an idle connection (or, under load, a busy
 * one) never drains that queue, so the array grows by one slot per query for the life of the
 * process and every query scans it: measured here, 57 µs a query on a fresh pool, 151 µs after
 * 240k queries, growing without end (docs/benchmarks.md, "postgres.js pool queue").
 */
const postgresQueue = {
  name: 'postgres',
  version: '3.4.9',
  files: ['src/queue.js', 'cjs/src/queue.js', 'cf/src/queue.js'],
  marker: 'launchdex-patch: queue-compaction',
  from: `    remove: (x) => {
      const index = xs.indexOf(x)
      return index === -1
        ? null
        : (xs.splice(index, 1), x)
    },
    push: (x) => (xs.push(x), x),
    shift: () => {
      const out = xs[index++]

      if (index === xs.length) {
        index = 0
        xs = []
      } else {
        xs[index - 1] = undefined
      }

      return out
    }`,
  to: `    // launchdex-patch: queue-compaction (scripts/patch-dependencies.mjs): only the live part
    // is searched, and the shifted-out prefix is dropped once it outgrows what is left.
    remove: (x) => {
      const at = xs.indexOf(x, index)
      return at === -1
        ? null
        : (xs.splice(at, 1), x)
    },
    push: (x) => (xs.push(x), x),
    shift: () => {
      const out = xs[index++]

      if (index === xs.length) {
        index = 0
        xs = []
      } else {
        xs[index - 1] = undefined
        if (index >= 1024 && index * 2 >= xs.length) {
          xs = xs.slice(index)
          index = 0
        }
      }

      return out
    }`,
};

const patches = [postgresQueue];

for (const patch of patches) {
  // A direct dependency: npm installs it at the top of node_modules.
  const root = path.join(modules, patch.name);
  const manifest = path.join(root, 'package.json');
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
  if (version !== patch.version) {
    throw new Error(
      `${patch.name} is ${version}, the patch in scripts/patch-dependencies.mjs is for ${patch.version}: check whether ${version} still needs it (its test: server/db/postgres-queue.test.ts), then update or remove the patch`,
    );
  }
  for (const file of patch.files) {
    const target = path.join(root, file);
    const text = readFileSync(target, 'utf8');
    if (text.includes(patch.marker)) continue;
    if (!text.includes(patch.from))
      throw new Error(`${patch.name}/${file} is not the text the patch replaces: review the patch`);
    writeFileSync(target, text.replace(patch.from, patch.to));
    console.log(`patched ${patch.name}@${version} ${file} (${patch.marker})`);
  }
}
