/** What the indexer logs through: pino's shape, so tests can pass a silent one. */
export interface IndexerLogger {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * Backfill progress lines (rate, lag, ETA), at most one per `intervalMs` unless forced: a line
 * per committed range would be hundreds a second.
 */
export function createProgressReporter(logger: IndexerLogger, intervalMs: number) {
  const startedAt = Date.now();
  let lastAt = 0;
  let startBlock: number | undefined;
  let events = 0;
  return {
    /** The first step's first block: rates count from the block before it. */
    begin(next: number) {
      startBlock ??= next - 1;
    },
    committed(eventCount: number, to: number, head: number) {
      events += eventCount;
      const now = Date.now();
      if (to !== head && now - lastAt < intervalMs) return;
      lastAt = now;
      const seconds = Math.max(0.001, (now - startedAt) / 1000);
      const blocksPerSecond = (to - (startBlock ?? to)) / seconds;
      const eventsPerSecond = events / seconds;
      const lag = head - to;
      const eta = blocksPerSecond > 0 ? lag / blocksPerSecond : Number.POSITIVE_INFINITY;
      logger.info(
        {
          indexedThroughBlock: to,
          head,
          lag,
          blocksPerSecond: Math.round(blocksPerSecond),
          eventsPerSecond: Math.round(eventsPerSecond),
          etaSeconds: Number.isFinite(eta) ? Math.round(eta) : null,
        },
        lag > 0
          ? `backfill: block ${to}/${head} · ${Math.round(blocksPerSecond)} blocks/s · ${Math.round(eventsPerSecond)} events/s · ETA ${Number.isFinite(eta) ? `${Math.ceil(eta)}s` : '?'}`
          : `at head ${to} · ${events} events indexed`,
      );
    },
  };
}
