import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { INDEXER_NODE_FLAGS } from '../server/indexer/heap';
import { chainEnv, type TestChain } from './chain';
import type { TestDatabase } from './database';

const root = path.resolve(import.meta.dirname, '..');

/**
 * `npm run indexer` as a real process on a test database and chain, with its node flags: the
 * compiled indexer (dist/, `npm run build`), one process, so a signal reaches the indexer itself.
 */
export function spawnIndexerProcess(
  database: Pick<TestDatabase, 'env'>,
  chain: TestChain,
  env: Record<string, string>,
  stdio: { stderr: 'pipe' | 'ignore' } = { stderr: 'pipe' },
  args: readonly string[] = [],
): ChildProcess {
  return spawn(process.execPath, [...INDEXER_NODE_FLAGS, 'dist/indexer.js', ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      NODE_ENV: 'production',
      ...database.env,
      ...chainEnv(chain),
      LOG_LEVEL: 'info',
      // As the in-process harness (test/indexer/harness.ts): segments start often on test chains.
      HISTORY_SEGMENT_MIN_EVENTS: '4',
      ...env,
    },
    stdio: ['ignore', 'pipe', stdio.stderr],
  });
}

/**
 * Waits until `child`'s stdout (its log lines) shows `text`, or it exits first: `shown`, and the
 * output so far. Start-up time varies with machine load, so a test's clock starts at a line.
 */
export function outputShows(child: ChildProcess, text: string): Promise<{ shown: boolean; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(text)) resolve({ shown: true, output });
    });
    child.once('exit', () => resolve({ shown: false, output }));
  });
}
