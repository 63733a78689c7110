import pino, { type Logger } from 'pino';
import type { Config } from './config';

/**
 * A process's JSON logger (pino), level from LOG_LEVEL. Built once per process, with its other
 * resources (server/process), and passed down to what logs.
 * @example const logger = createLogger(config); logger.info('started');
 */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({ level: config.logLevel, base: { service: 'launchdex' } });
}
