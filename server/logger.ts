import pino, { type Logger } from 'pino';
import { getConfig } from './config';

const slot: { logger?: Logger } = {};

/** Process-wide JSON logger (pino); level from LOG_LEVEL. */
export function getLogger(): Logger {
  slot.logger ??= pino({ level: getConfig().logLevel, base: { service: 'launchdex' } });
  return slot.logger;
}
