import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Database } from '../db';
import { INDEX_CHANNEL, listenForNotifications } from '../db/notify';
import { createStreamHub, type StreamHub } from './hub';

/**
 * The web process's stream hub (one poller), built once at process start (server/process).
 * `signal` stops its LISTEN connection.
 * @example const hub = createProcessHub({ config, db, logger, signal });
 */
export function createProcessHub(options: {
  config: Pick<Config, 'stream' | 'database'>;
  db: Database;
  logger: Logger;
  signal: AbortSignal;
}): StreamHub {
  const { config, db, logger, signal } = options;
  const hub = createStreamHub({
    db: async () => db,
    ...config.stream,
    onError: (error) => logger.warn({ err: error }, 'stream poll failed; retrying'),
  });
  // On PostgreSQL the hub polls when the index moves (NOTIFY at the commit), not only every
  // STREAM_POLL_MS: a block reaches subscribers as soon as it reaches the API.
  listenForNotifications(
    config.database,
    INDEX_CHANNEL,
    'launchdex-stream-listen',
    () => void hub.refresh(),
  ).then(
    (stop) => signal.addEventListener('abort', () => void stop().catch(() => {}), { once: true }),
    (error: unknown) => logger.warn({ err: error }, 'stream listen failed; the poll alone serves'),
  );
  return hub;
}
