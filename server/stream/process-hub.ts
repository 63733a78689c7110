import { getConfig } from '../config';
import { getDatabase } from '../db';
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
    // Every connection the limit counts, replaying or live.
    registerMetricProbes({ streamClients: () => hub.slots });
  }
  return slot.streamHub;
}
