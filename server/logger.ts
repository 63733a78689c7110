import pino, { type Logger } from 'pino';
import type { Config } from './config';

/**
 * A process's JSON logger (pino), level from LOG_LEVEL. Built once per process, with its other
 * resources (server/process), and passed down to what logs.
 * @example const logger = createLogger(config); logger.info('started');
 */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  // Asynchronous writes: a line goes out at once when stdout is free, and the lines of a busy
  // moment share one write instead of a system call each (a synchronous write per access log
  // line was ~5% of an uncached read's CPU). pino flushes what is left when the process exits.
  return pino(
    { level: config.logLevel, base: { service: 'launchdex' } },
    // At most PIPE_BUF (4 KiB) per write, whole lines: cluster workers share one stdout pipe, and
    // writes that size are never interleaved with another process's.
    pino.destination({ dest: 1, sync: false, maxWrite: 4_096 }),
  );
}
