import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../config';
import { parseWorkersFlag, planWebWorkers, workerEnvironment } from './worker-count';

describe('planWebWorkers', () => {
  it('auto on PostgreSQL is one worker per core', () => {
    expect(planWebWorkers({ requested: 'auto', database: 'postgres', cores: 8 }).workers).toBe(8);
    expect(planWebWorkers({ requested: 'auto', database: 'postgres', cores: 0 }).workers).toBe(1);
  });

  it('an explicit count on PostgreSQL is honoured, without a warning', () => {
    const plan = planWebWorkers({ requested: 3, database: 'postgres', cores: 2 });
    expect(plan).toMatchObject({ workers: 3 });
    expect(plan.warning).toBeUndefined();
  });

  it('PGlite is single-process: always one worker, and a warning when more were asked for', () => {
    expect(planWebWorkers({ requested: 'auto', database: 'pglite', cores: 8 })).toEqual({
      workers: 1,
      reason: 'embedded PGlite admits one process',
    });
    expect(planWebWorkers({ requested: 1, database: 'pglite', cores: 8 }).warning).toBeUndefined();
    const forced = planWebWorkers({ requested: 4, database: 'pglite', cores: 8 });
    expect(forced.workers).toBe(1);
    expect(forced.warning).toMatch(
      /PGlite is a single-process embedded database: serving with 1 worker, not 4/,
    );
  });
});

describe('parseWorkersFlag', () => {
  it('takes auto or a whole number ≥ 1 and refuses anything else', () => {
    expect(parseWorkersFlag(undefined)).toBeUndefined();
    expect(parseWorkersFlag('auto')).toBe('auto');
    expect(parseWorkersFlag('2')).toBe(2);
    for (const bad of ['0', '-1', '1.5', 'two', '']) expect(() => parseWorkersFlag(bad)).toThrow(/--workers/);
  });
});

describe('workerEnvironment', () => {
  const postgres = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/x' };
  const runsIndexer = (env: Record<string, string>, place: number) =>
    parseConfig({ ...env, ...workerEnvironment(place, parseConfig(env).embeddedIndexer) }).embeddedIndexer;

  it('INDEXER_MODE=embedded on PostgreSQL: exactly one of N workers runs the indexer', () => {
    const env = { ...postgres, INDEXER_MODE: 'embedded' };
    const places = [0, 1, 2, 3].filter((place) => runsIndexer(env, place));
    expect(places).toEqual([0]);
  });

  it('the default on PostgreSQL runs no embedded indexer in any worker', () => {
    expect([0, 1, 2, 3].some((place) => runsIndexer(postgres, place))).toBe(false);
  });
});
