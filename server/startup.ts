import { ConfigError, getConfig } from './config';
import { getDatabase } from './db';

/**
 * Validates the configuration and opens + migrates the database before the first request, so a
 * bad setting or an unreachable database fails start-up loudly instead of failing every request.
 */
export async function startServerProcess(): Promise<void> {
  try {
    const config = getConfig();
    await getDatabase(config);
  } catch (error) {
    console.error(
      error instanceof ConfigError
        ? error.message
        : `Launchdex failed to start: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(1);
  }
}
