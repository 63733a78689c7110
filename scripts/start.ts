/**
 * `npm start`: build when the sources changed, then serve the production app on the configured
 * port and print where it is. Ctrl-C stops the server.
 */

import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfigOrExit } from './cli';

const root = path.resolve(import.meta.dirname, '..');
const sourceRoots = [
  'app',
  'server',
  'components',
  'public',
  'next.config.mjs',
  'package-lock.json',
  'tsconfig.json',
];

function newestMtime(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

function needsBuild(): boolean {
  const buildId = path.join(root, '.next', 'BUILD_ID');
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  return sourceRoots.some((entry) => newestMtime(path.join(root, entry)) > built);
}

async function main() {
  const config = loadConfigOrExit();
  if (needsBuild()) {
    console.log('▶ building the web app (first run or sources changed)…');
    const build = spawnSync(process.execPath, [path.join(root, 'node_modules/next/dist/bin/next'), 'build'], {
      cwd: root,
      stdio: 'inherit',
    });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  const url = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
  console.log(
    `▶ starting the web server (${config.database.kind === 'pglite' ? `embedded PGlite in ${config.database.dir}` : 'PostgreSQL'})…`,
  );
  const server = spawn(
    process.execPath,
    [
      path.join(root, 'node_modules/next/dist/bin/next'),
      'start',
      '-p',
      String(config.port),
      '-H',
      config.host,
    ],
    // Its own process group, so stopping it also stops the next-server worker it forks.
    { cwd: root, stdio: 'inherit', detached: true },
  );
  const stop = () => {
    try {
      if (server.pid) process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  process.on('exit', stop);
  server.on('exit', (code) => process.exit(code ?? 0));

  for (let attempt = 0; attempt < 240; attempt++) {
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) {
        console.log(
          `\n  Launchdex is up: ${url}\n  API: ${url}/api/v1/tokens · docs: ${url}/docs\n  Ctrl-C to stop.\n`,
        );
        return;
      }
    } catch {
      // still starting
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  console.error('The server did not become healthy within 2 minutes.');
  stop();
}

await main();
