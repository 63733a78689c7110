import { readIndexedThroughBlock } from '../api/routers/tokens/rows';
import { getConfig } from '../config';
import { getDatabase } from '../db';
import { embeddedIndexer } from '../startup';
import { getStreamHub } from '../stream/process-hub';
import { readChainHead } from './chain-head';
import { createMetrics, type LaunchdexMetrics } from './metrics';

const slot = globalThis as typeof globalThis & { __launchdexMetrics?: LaunchdexMetrics };

/** The web process's metrics (one registry per process, shared by every route module copy). */
export function getProcessMetrics(): LaunchdexMetrics {
  slot.__launchdexMetrics ??= createMetrics({
    indexedThroughBlock: async () => {
      try {
        return await readIndexedThroughBlock((await getDatabase()).db);
      } catch {
        return null;
      }
    },
    chainHead: () => readChainHead(getConfig().chain),
    indexer: () => embeddedIndexer()?.status,
    // Every connection the limit counts, replaying or live.
    streamClients: () => getStreamHub().slots,
  });
  return slot.__launchdexMetrics;
}
