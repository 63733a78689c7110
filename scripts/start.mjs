#!/usr/bin/env node
/**
 * `npm start`: builds what changed (`npm run build`: the web app and the compiled server in
 * dist/), then runs the launcher compiled from scripts/start.ts. Plain JavaScript, so the first
 * `npm start` on a fresh clone needs nothing compiled.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const sources = [
  'app',
  'server',
  'shared',
  'components',
  'scripts',
  'contracts/generated',
  'public',
  'next.config.mjs',
  'package-lock.json',
  'tsconfig.json',
];

function newestMtime(entry) {
  const full = path.join(root, entry);
  if (!existsSync(full)) return 0;
  const stat = statSync(full);
  const children = stat.isDirectory() ? readdirSync(full) : [];
  return Math.max(stat.mtimeMs, ...children.map((child) => newestMtime(path.join(entry, child))));
}

const built = Math.min(newestMtime('.next/BUILD_ID'), newestMtime('dist/start.js'));
if (sources.some((entry) => newestMtime(entry) > built)) {
  console.log('▶ building the web app and the server (first run or sources changed)…');
  // No telemetry calls from a developer's machine (and none are possible offline).
  const build = spawnSync('npm', ['run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
await import(path.join(root, 'dist', 'start.js'));
