import type { ReservedSql, Sql } from 'postgres';
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

/** Opens the session of an export reading `db`. */
export async function openExportSession(
  db: Database,
  deadlines: ExportSessionDeadlines,
): Promise<ExportSession> {
  const client = (db as unknown as { $client: Sql | object }).$client;
  if (!('reserve' in client)) return { db, headDone: async () => {}, close: async () => {} };
  const reserved = await reserveWithin(client, deadlines.acquireMs);
  try {
    await reserved.unsafe(
      `begin isolation level repeatable read read only;
       set local idle_in_transaction_session_timeout = ${Math.ceil(deadlines.idleMs)};
       set local statement_timeout = ${Math.ceil(deadlines.headMs)}`,
    );
  } catch (error) {
    reserved.release();
    throw error;
  }
  return {
    // What compiled reads ask of a database: its driver (`$client`), here the reserved session.
    db: { $client: reserved } as unknown as Database,
    headDone: async () => {
      await reserved.unsafe(`set local statement_timeout = ${Math.ceil(deadlines.statementMs)}`);
    },
    close: async () => {
      // Queued behind a statement still running (an export cut mid-chunk): the session goes back
      // once it has answered (the statement timeout bounds it) and the transaction is gone.
      await reserved.unsafe('rollback').catch(() => {});
      reserved.release();
    },
  };
}

/** A reserved session of `client`'s pool, or a connection error once `acquireMs` passed without one. */
function reserveWithin(client: Sql, acquireMs: number): Promise<ReservedSql> {
  const reserving = client.reserve();
  if (acquireMs <= 0) return reserving;
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new AcquireTimeoutError(`no database session within ${acquireMs} ms`));
    }, acquireMs);
    reserving.then(
      (reserved) => {
        clearTimeout(timer);
        // The wait was given up on: the session it got at last goes straight back.
        if (late) reserved.release();
        else resolve(reserved);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
