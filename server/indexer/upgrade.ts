import { sql } from 'drizzle-orm';
import { type Database, type DatabaseHandle, selectRows } from '../db/client';
import { PROJECTION_VERSION } from '../db/projection-tables';
import { type RebuildOptions, type RebuildReport, rebuildIndex } from './rebuild/rebuild';
import { createRpcClient } from './rpc/client';

/** The version that built the index (null: no index yet) and the first block its event store holds. */
export async function readProjectionState(
  db: Database,
): Promise<{ version: number | null; storeFrom: number | null }> {
  const [row] = await selectRows<{ version: number | null; store_from: string | number | null }>(
    db,
    sql`select (select projection_version from indexer_checkpoint where id = 'main') as version,
      (select min(from_block) from raw_log_chunks) as store_from`,
  );
  return {
    version: row?.version ?? null,
    storeFrom: row?.store_from === null || row?.store_from === undefined ? null : Number(row.store_from),
  };
}

/**
 * How long the question before a start's rebuild waits: eth_blockNumber answers in milliseconds on
 * a live node, and the start (PGlite: the server's first answer) waits for it. RPC_TIMEOUT_MS, if lower.
 */
const ASK_TIMEOUT_MS = 5_000;

/**
 * An upgrade's rebuild: when the index was built by an older PROJECTION_VERSION (a release that
 * added a projection or changed a fold), every projection is computed anew beside it and swapped
 * in (rebuild/rebuild.ts), so no reader keeps the old rules' rows. From the event store when it
 * reaches back to the start block; otherwise (an index older than the store) the chain is read
 * again from the RPC. Nothing happens for a current index or a database not indexed yet.
 * @returns the rebuild's report, or undefined when nothing was outdated
 * @example await rebuildIfOutdated(handle.db, { database, chain, rpc, logger });
 */
export async function rebuildIfOutdated(
  db: Database,
  options: Omit<RebuildOptions, 'fromRpc'> & {
    /**
     * Ask the node once (no retries) before rebuilding: a rebuild cannot end without its
     * catch-up, which on a node that is down fails only after the RPC client's retries (about a
     * minute). For a start that waits for the rebuild (PGlite); beside a live index the retries
     * are what rides out a blip.
     */
    askRpcFirst?: boolean;
  },
): Promise<RebuildReport | undefined> {
  const { version, storeFrom } = await readProjectionState(db);
  if (version === null || version === PROJECTION_VERSION) return undefined;
  const { logger, chain } = options;
  if (version > PROJECTION_VERSION) {
    logger.warn(
      { built: version, code: PROJECTION_VERSION },
      `the index was built by projection version ${version}, newer than this code's ${PROJECTION_VERSION}: following it as it is`,
    );
    return undefined;
  }
  const { askRpcFirst, ...rebuild } = options;
  if (askRpcFirst)
    await createRpcClient({
      url: chain.rpcUrl,
      timeoutMs: Math.min(chain.rpcTimeoutMs ?? ASK_TIMEOUT_MS, ASK_TIMEOUT_MS),
      maxRetries: 0,
    }).request('eth_blockNumber', []);
  const fromRpc = storeFrom === null || storeFrom > Number(chain.startBlock);
  logger.warn(
    { built: version, code: PROJECTION_VERSION, fromRpc },
    `the index was built by projection version ${version}, older than this code's ${PROJECTION_VERSION}: rebuilding it beside the live one ${
      fromRpc
        ? `from the RPC (its event store ${storeFrom === null ? 'is empty' : `begins at block ${storeFrom}`}, not at the start block)`
        : 'from its event store'
    }`,
  );
  return rebuildIndex({ ...rebuild, fromRpc });
}

/**
 * What an indexer's start does with an outdated index (scripts/indexer.ts, server/startup.ts): on
 * PGlite the rebuild takes the process's one session, so it is awaited before anything else uses
 * it; on PostgreSQL it runs beside the live index. Either way a failure (an RPC down for the
 * catch-up, a full disk) is logged and the live indexer goes on following the old index: a start
 * that refused to serve until the rebuild succeeds would turn a slow upgrade into an outage. The
 * next start tries again, resuming the rebuild schema it left.
 */
export async function rebuildAtStart(
  handle: DatabaseHandle,
  options: Omit<RebuildOptions, 'fromRpc' | 'handle' | 'database'>,
): Promise<void> {
  const pglite = handle.driver === 'pglite';
  const rebuild = rebuildIfOutdated(handle.db, {
    ...options,
    database: handle.config,
    ...(pglite ? { handle, askRpcFirst: true } : {}),
  }).catch((error: unknown) =>
    options.logger.error(
      { err: error instanceof Error ? error.message : String(error) },
      'upgrade rebuild failed; following the old index until the next start',
    ),
  );
  if (pglite) await rebuild;
}
