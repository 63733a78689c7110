import { createMetrics, type IndexProbe, type LaunchdexMetrics } from './metrics';

/**
 * The web process's metrics. The gauges read probes that the observed parts register themselves
 * (startup: the checkpoint, the chain head and the embedded indexer; the stream hub: its
 * clients), so observability imports nothing it observes: logging a request loads no database,
 * RPC or indexer module. A probe not (yet) registered reads as null (0 stream clients).
 */
const slot = globalThis as typeof globalThis & {
  __launchdexMetrics?: LaunchdexMetrics;
  __launchdexProbes?: Partial<IndexProbe>;
};

/** Adds or replaces probes; every route module copy of this process sees them (globalThis). */
export function registerMetricProbes(probes: Partial<IndexProbe>): void {
  slot.__launchdexProbes = { ...slot.__launchdexProbes, ...probes };
}

/** This process's metrics (one registry per process, shared by every route module copy). */
export function getProcessMetrics(): LaunchdexMetrics {
  const probes = () => slot.__launchdexProbes ?? {};
  slot.__launchdexMetrics ??= createMetrics({
    indexedThroughBlock: async () => (await probes().indexedThroughBlock?.()) ?? null,
    chainHead: async () => (await probes().chainHead?.()) ?? null,
    indexer: () => probes().indexer?.(),
    streamClients: () => probes().streamClients?.() ?? 0,
    readCache: () => probes().readCache?.(),
  });
  return slot.__launchdexMetrics;
}
