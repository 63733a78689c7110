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
