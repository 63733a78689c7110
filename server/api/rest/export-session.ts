import type { Sql } from 'postgres';
import type { Database } from '../../db/client';
import { AcquireTimeoutError } from '../../db/deadlines';

/**
 * Where one export's statements run, and what it holds meanwhile (docs/decisions.md, "CSV exports
 * read one snapshot"). On PostgreSQL: one pool session in a REPEATABLE READ READ ONLY
 * transaction, so every chunk reads the snapshot the first statement read, however the index
 * moves. PGlite is one session shared by the whole process (the embedded indexer included): a
 * transaction held across chunks would stall every other query for as long as the client takes to
 * read, so there each statement runs on its own and the lists check the index did not move under
 * them (server/api/routers/token-exports.ts).
 */
export interface ExportSession {
  /** Runs the export's statements (compiled reads take it as their database). */
  db: Database;
  /** The head has answered: the statements after it run under the read statement timeout. */
  headDone(): Promise<void>;
  /** Ends the transaction and gives the session back; never rejects. */
  close(): Promise<void>;
}

/** The deadlines of an export's session, in ms. */
export interface ExportSessionDeadlines {
  /** A pool session within this (0: it waits), else an {@link AcquireTimeoutError}: a 503. */
  acquireMs: number;
  /**
   * The server's own bound on the transaction left idle (idle_in_transaction_session_timeout): a
   * backstop behind the export's deadline should this process stop giving the session back.
   */
  idleMs: number;
  /** statement_timeout of the head, which counts up to EXPORT_MAX_ROWS rows (0: none). */
  headMs: number;
  /** statement_timeout of every statement after it: the pool's read timeout (0: none). */
  statementMs: number;
}

/**
 * Opens the session of an export reading `db`: on PostgreSQL a transaction of the pool's own
 * (`begin`), held open until `close`. Not a reserved session: a reserved connection that a frozen
 * server's cut closed went back to the pool as if open when released, and exports waited for
 * sessions (503 after the acquire deadline) for a minute after the server thawed, while reads
 * recovered at once. A transaction's connection is the pool's to reconnect.
 */
export async function openExportSession(
  db: Database,
  deadlines: ExportSessionDeadlines,
): Promise<ExportSession> {
  const client = (db as unknown as { $client: Sql | object }).$client;
  if (!('begin' in client)) return { db, headDone: async () => {}, close: async () => {} };
  let end!: () => void;
  const held = new Promise<void>((resolve) => {
    end = resolve;
  });
  let late = false;
  return new Promise<ExportSession>((resolve, reject) => {
    const timer =
      deadlines.acquireMs > 0
        ? setTimeout(() => {
            late = true;
            reject(new AcquireTimeoutError(`no database session within ${deadlines.acquireMs} ms`));
          }, deadlines.acquireMs)
        : undefined;
    const transaction = client.begin('isolation level repeatable read read only', async (tx) => {
      clearTimeout(timer);
      // The wait was given up on: the transaction it got at last ends at once.
      if (late) return;
      await tx.unsafe(
        `set local idle_in_transaction_session_timeout = ${Math.ceil(deadlines.idleMs)};
         set local statement_timeout = ${Math.ceil(deadlines.headMs)}`,
      );
      resolve({
        // What compiled reads ask of a database: its driver (`$client`), here the transaction.
        db: { $client: tx } as unknown as Database,
        headDone: async () => {
          await tx.unsafe(`set local statement_timeout = ${Math.ceil(deadlines.statementMs)}`);
        },
        close: async () => {
          // Ends the transaction once a statement still running (an export cut mid-chunk) has
          // answered (the statement timeout bounds it, the heartbeat a frozen server).
          end();
          await transaction.catch(() => {});
        },
      });
      await held;
    });
    transaction.catch((error: unknown) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}
