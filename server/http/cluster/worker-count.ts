import { WEB_WORKERS_ENV } from '../../api/database-share';
/** How many web processes `npm run serve` runs, and what to tell the operator about it. */
export interface WebWorkerPlan {
  workers: number;
  /** Set when the request could not be honoured (logged as a warning). */
  warning?: string;
  /** Why this many, for the start-up log line. */
  reason: string;
}

/**
 * The number of web workers. `auto` is one per core on PostgreSQL. PGlite is one embedded
 * database that only one process may open, so it always gets exactly one (and says so when more
 * were asked for).
 * @example planWebWorkers({ requested: 'auto', database: 'postgres', cores: 8 }) // { workers: 8, … }
 */
export function planWebWorkers(input: {
  requested: number | 'auto';
  database: 'postgres' | 'pglite';
  cores: number;
}): WebWorkerPlan {
  if (input.database === 'pglite') {
    const reason = 'embedded PGlite admits one process';
    if (input.requested !== 'auto' && input.requested > 1)
      return {
        workers: 1,
        reason,
        warning: `PGlite is a single-process embedded database: serving with 1 worker, not ${input.requested} (set DATABASE_URL to PostgreSQL for more)`,
      };
    return { workers: 1, reason };
  }
  if (input.requested === 'auto') {
    const cores = Math.max(1, Math.floor(input.cores));
    return { workers: cores, reason: `one per core (${cores})` };
  }
  return { workers: Math.max(1, Math.floor(input.requested)), reason: 'as configured' };
}

/**
 * `--workers` as given on the command line: `auto`, a whole number ≥ 1, or undefined when absent.
 * @example parseWorkersFlag('4') // 4
 */
export function parseWorkersFlag(value: string | undefined): number | 'auto' | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (text === 'auto') return 'auto';
  if (!/^[1-9]\d{0,3}$/.test(text))
    throw new Error(`--workers must be auto or a whole number ≥ 1, not "${value}"`);
  return Number(text);
}

/**
 * What the worker in `place` (0 to N-1) is forked with on top of the primary's environment. The
 * embedded indexer, when the configuration asks for one, runs in place 0 only (and in the
 * replacements of that worker), never in two processes at once; every other place has it off.
 * @example workerEnvironment(1, true, 2) // { INDEXER_MODE: 'off', LAUNCHDEX_WEB_WORKERS: '2' }
 */
export function workerEnvironment(
  place: number,
  embeddedIndexer: boolean,
  workers = 1,
): Record<string, string> {
  return {
    ...(embeddedIndexer && place > 0 ? { INDEXER_MODE: 'off' } : {}),
    // Per-client limits a worker keeps on its own divide the instance's limit among the workers.
    ...(workers > 1 ? { [WEB_WORKERS_ENV]: String(workers) } : {}),
  };
}
