import { getConfig } from '../config';
import { getDatabase } from '../db';
import { INDEX_CHANNEL, listenForNotifications } from '../db/notify';
import { getLogger } from '../logger';
import { registerMetricProbes } from '../observability/process-metrics';
import { createStreamHub, type StreamHub } from './hub';

const slot: { streamHub?: StreamHub } = {};

/** This process's stream hub (one poller). */
export function getStreamHub(): StreamHub {
  const config = getConfig();
  if (!slot.streamHub) {
    const hub = createStreamHub({
      db: async () => (await getDatabase(config)).db,
      ...config.stream,
      onError: (error) => getLogger().warn({ err: error }, 'stream poll failed; retrying'),
    });
    slot.streamHub = hub;
    // On PostgreSQL the hub polls when the index moves (NOTIFY at the commit), not only every
    // STREAM_POLL_MS: a block reaches subscribers as soon as it reaches the API.
    listenForNotifications(
      config.database,
      INDEX_CHANNEL,
      'launchdex-stream-listen',
      () => void hub.refresh(),
    ).then(
      (stop) => process.once('SIGTERM', () => void stop().catch(() => {})),
      (error: unknown) => getLogger().warn({ err: error }, 'stream listen failed; the poll alone serves'),
    );
    // Every connection the limit counts, replaying or live.
    registerMetricProbes({ streamClients: () => hub.slots });
  }
  return slot.streamHub;
}
