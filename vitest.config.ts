import path from 'node:path';
import { defineConfig } from 'vitest/config';

const alias = { '@': path.resolve(import.meta.dirname) };

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
          exclude: ['node_modules/**'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 180_000,
          // Integration files each start servers and chains; two at once is what 2 cores take.
          maxWorkers: 2,
        },
      },
    ],
  },
});
