import { type Config, ConfigError, getConfig } from '../server/config';

/** The configuration, or a readable message naming the bad variable and exit code 1. */
export function loadConfigOrExit(): Config {
  try {
    return getConfig();
  } catch (error) {
    console.error(error instanceof ConfigError ? error.message : error);
    process.exit(1);
  }
}
