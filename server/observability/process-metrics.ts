import { createMetrics, type IndexProbe, type LaunchdexMetrics } from './metrics';

/**
 * The web process's metrics. The gauges read probes that the observed parts register themselves
 * (startup: the checkpoint, the chain head and the embedded indexer; the stream hub: its
 * clients), so observability imports nothing it observes: logging a request loads no database,
 * RPC or indexer module. A probe not (yet) registered reads as null (0 stream clients).
 */
const slot: {
  metrics?: LaunchdexMetrics;
  probes?: Partial<IndexProbe>;
} = {};

/** Adds or replaces probes; whoever registers them, the one registry reads them. */
export function registerMetricProbes(probes: Partial<IndexProbe>): void {
  slot.probes = { ...slot.probes, ...probes };
}

/** This process's metrics (one registry per process). */
export function getProcessMetrics(): LaunchdexMetrics {
  // Every answer records its latency here: the common path allocates nothing.
  if (slot.metrics) return slot.metrics;
  const probes = () => slot.probes ?? {};
  slot.metrics = createMetrics({
    indexedThroughBlock: async () => (await probes().indexedThroughBlock?.()) ?? null,
    chainHead: async () => (await probes().chainHead?.()) ?? null,
    indexer: () => probes().indexer?.(),
    streamClients: () => probes().streamClients?.() ?? 0,
    readCache: () => probes().readCache?.(),
    databaseReads: () => probes().databaseReads?.(),
    replicaLag: () => probes().replicaLag?.(),
  });
  return slot.metrics;
}
