import pino, { type Logger } from 'pino';
import { getConfig } from './config';

const slot = globalThis as typeof globalThis & { __launchdexLogger?: Logger };

/** Process-wide JSON logger (pino); level from LOG_LEVEL. */
export function getLogger(): Logger {
  slot.__launchdexLogger ??= pino({ level: getConfig().logLevel, base: { service: 'launchdex' } });
  return slot.__launchdexLogger;
}
