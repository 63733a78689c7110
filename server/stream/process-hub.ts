import { getConfig } from '../config';
import { getDatabase } from '../db';
import { getLogger } from '../logger';
import { registerMetricProbes } from '../observability/process-metrics';
import { createStreamHub, type StreamHub } from './hub';

const slot = globalThis as typeof globalThis & { __launchdexStreamHub?: StreamHub };

/** This process's stream hub (one poller however many route module copies Next loads). */
export function getStreamHub(): StreamHub {
  const config = getConfig();
  if (!slot.__launchdexStreamHub) {
    const hub = createStreamHub({
      db: async () => (await getDatabase(config)).db,
      ...config.stream,
      onError: (error) => getLogger().warn({ err: error }, 'stream poll failed; retrying'),
    });
    slot.__launchdexStreamHub = hub;
    // Every connection the limit counts, replaying or live.
    registerMetricProbes({ streamClients: () => hub.slots });
  }
  return slot.__launchdexStreamHub;
}
