import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { availableBackends } from './test/backends';

const alias = { '@': path.resolve(import.meta.dirname) };
/** Suites that measure latency under attack: run alone, after the integration tests. */
const loadSuites = ['server/http/hostile-*.int.test.ts', 'server/http/fuzz.int.test.ts'];
/**
 * Shapes that exist only on PostgreSQL (PGlite admits one process per data directory). Where this
 * run has no PostgreSQL they are not collected at all: neither run nor reported as skipped.
 */
const postgresOnlySuites = ['server/indexer/multi-instance.int.test.ts'];
const withoutPostgres = !(await availableBackends()).includes('postgres');

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: {
          name: 'unit',
          include: [
            'server/**/*.test.ts',
            'contracts/**/*.test.ts',
            'scripts/**/*.test.ts',
            'components/**/*.test.ts',
            'shared/**/*.test.ts',
            'client/**/*.test.ts',
            'ops/**/*.test.ts',
          ],
          exclude: ['**/*.int.test.ts', 'node_modules/**'],
          environment: 'node',
          env: { LOG_LEVEL: 'silent' },
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['**/*.int.test.ts'],
          exclude: ['node_modules/**', ...loadSuites, ...(withoutPostgres ? postgresOnlySuites : [])],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // Integration files each start servers and chains; two at once is what 2 cores take.
          maxWorkers: 2,
        },
      },
      {
        resolve: { alias },
        test: {
          name: 'load',
          include: loadSuites,
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 240_000,
          // Latency bounds hold only on a machine nothing else is loading: one file at a time.
          fileParallelism: false,
          maxWorkers: 1,
        },
      },
    ],
  },
});
