#!/usr/bin/env node
/**
 * The npm registry this project is built against mirrors only the platform packages of
 * linux-x64, so `npm install` leaves other platforms' optional binaries (biome, next/swc, ...)
 * out of package-lock.json, and `npm ci` then rejects the lock as out of sync. This adds the
 * missing entries with the os/cpu/libc their names state; npm skips them on any other platform
 * without fetching. Run after changing dependencies: `node scripts/complete-lockfile.mjs`.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const osNames = [
  'darwin',
  'linux',
  'win32',
  'freebsd',
  'android',
  'openbsd',
  'netbsd',
  'sunos',
  'aix',
  'wasm32',
  'openharmony',
];
const cpuNames = [
  'x64',
  'arm64',
  'arm',
  'ia32',
  'ppc64',
  's390x',
  'riscv64',
  'loong64',
  'mips64el',
  'wasm32',
];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => osNames.includes(p));
  const cpu = parts.map((p) => (p === 'amd64' ? 'x64' : p)).find((p) => cpuNames.includes(p));
  const libc = parts.includes('musl')
    ? 'musl'
    : parts.includes('gnu') && os === 'linux'
      ? 'glibc'
      : undefined;
  return { os, cpu, libc };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [dep, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = location === '' ? '' : `${location}/`;
    if (packages[`${base}node_modules/${dep}`] || packages[`node_modules/${dep}`]) continue;
    const { os, cpu, libc } = platformOf(dep);
    if (!os && !cpu) {
      console.warn(`skipping ${dep}: cannot tell its platform from the name`);
      continue;
    }
    const version = String(range).replace(/^[\^~=]/, '');
    packages[`node_modules/${dep}`] = {
      version,
      ...(entry.dev ? { dev: true } : {}),
      optional: true,
      ...(os ? { os: [os] } : {}),
      ...(cpu ? { cpu: [cpu] } : {}),
      ...(libc ? { libc: [libc] } : {}),
    };
    added++;
  }
}
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} other-platform optional entries`);
