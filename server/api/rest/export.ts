import type { Logger } from 'pino';
import type { Database } from '../../db/client';
import type { ReadDatabases } from '../../db/read-databases';
import { AppError } from '../../errors';
import { type ReleaseTurn, whileHolding } from '../database-share';
import { INDEXED_BLOCK_HEADER } from '../min-block';
import type { Context } from '../trpc';
import type { RestAnswer, StreamedBody } from './answers';
import { CSV_CONTENT_TYPE } from './export-format';
import { type ExportSession, openExportSession } from './export-session';

/**
 * CSV exports (docs/api.md, "CSV exports"): a route's whole list streamed in keyset chunks of
 * EXPORT_CHUNK_ROWS rows, each chunk one bounded statement run when the transport asks
 * for it (after the previous one was written: backpressure), all of them reading one index
 * position (./export-session.ts). What the client will get is known before the first byte: the
 * first statement counts the rows (at most EXPORT_MAX_ROWS) and, past the limit, where the next
 * export starts, and both go out as headers. A cut after the head (the deadline, a failed
 * statement) ends the body without HTTP's last chunk: clients see an incomplete transfer, never a
 * short file that looks whole.
 */

/** A row's key as the driver returned it: where the next chunk starts. */
export type ExportKey = readonly [string | number, string | number];

/** The index position an export reads, and the key of the last row it wrote. */
export interface ExportPosition {
  after: ExportKey;
  block: number;
  /** The last `index_changes` entry when the export began. */
  seq: number;
}

export interface ExportChunk {
  /** Its CSV records, in pieces of a few dozen KB (each is written as it is): text or its UTF-8 bytes. */
  pieces: (string | Uint8Array)[];
  rows: number;
  /** The key of its last row (null: no rows). */
  last: ExportKey | null;
}

export interface ExportHead {
  block: number;
  seq: number;
  /** Rows the export writes: the list's after the cursor, at most the limit. */
  rows: number;
  /** The cursor after the limit's last row, when the list holds more. */
  next: string | null;
  first: ExportChunk;
}

/** A list a route exports whole (server/api/routers/token-exports.ts). */
export interface ListExport {
  /** The file name's first word. */
  name: string;
  /** The header record, CRLF included. */
  header: string;
  /**
   * The first statement, on the export's session: the position, the rows counted up to
   * `limit + 1`, the cursor past the limit and the first `first` rows. For the parsed `input`
   * of the route; rejects as the JSON page would (404 for no token, 400 for a foreign cursor).
   */
  head(
    ctx: Context,
    db: Database,
    input: unknown,
    rows: { limit: number; first: number },
  ): Promise<ExportHead>;
  /** The `rows` rows after `at.after`; rejects with {@link ExportCut} when the index moved under it. */
  chunk(db: Database, input: unknown, at: ExportPosition, rows: number): Promise<ExportChunk>;
}

/** Why an export stopped after its head: the deadline, the index moved (PGlite), the client left. */
export class ExportCut extends Error {
  constructor(readonly reason: 'deadline' | 'index_moved' | 'client_gone') {
    super(`the export was cut: ${reason}`);
  }
}

/**
 * Counts an export's rows against its client's budget; resolves with how long the export waits
 * before its next chunk (the client's debt, in ms).
 */
export type ExportCharge = (client: string, rows: number) => number | Promise<number>;

/** Exports one process runs at once: `perProcess` in all, one per client. */
export interface ExportSeats {
  take(client: string): (() => void) | undefined;
}

export function createExportSeats(perProcess: number): ExportSeats {
  const clients = new Set<string>();
  return {
    take(client) {
      if (clients.size >= perProcess || clients.has(client)) return undefined;
      clients.add(client);
      let held = true;
      return () => {
        if (held) clients.delete(client);
        held = false;
      };
    },
  };
}

/** What exports run with: the dispatcher's own services. */
export interface ExportServices {
  context: Context;
  logger: Logger;
  databases: ReadDatabases | undefined;
  turn(client: string | undefined): ReleaseTurn | Promise<ReleaseTurn>;
  charge: ExportCharge | undefined;
  seats: ExportSeats;
}

export interface ExportRequest {
  list: ListExport;
  parsed: { address: string };
  /** HEAD: the head statement's headers, no body. */
  head: boolean;
  client: string | undefined;
  /** The client's high-water block (min_block, the header, the cursor's). */
  seen: number | undefined;
  /** The request's raw path and query, for the next export's link. */
  path: string;
  query: URLSearchParams;
  requestId: string;
}

/**
 * The export's answer: its headers, and (GET) its body as a stream the transport pulls. Holds a
 * seat of {@link ExportSeats} and a database session until the body ends; refused with 429 when
 * the client already runs one or the process its maximum.
 */
export async function exportAnswer(services: ExportServices, request: ExportRequest): Promise<RestAnswer> {
  const { context } = services;
  const limits = context.config.exports;
  const client = request.client ?? 'anonymous';
  const leave = services.seats.take(client);
  if (!leave)
    throw new AppError(
      'rate_limited',
      `one CSV export at a time per client and ${limits.perProcess} per server process; retry when one has finished`,
      undefined,
      { 'retry-after': '5' },
    );
  const stopping = new AbortController();
  const timer = setTimeout(() => stopping.abort(new ExportCut('deadline')), limits.deadlineMs);
  const open = (db: Database) => openAt(services, request, db);
  let opened: { session: ExportSession; head: ExportHead };
  try {
    opened = await (services.databases
      ? services.databases.read(request.seen, (on) => open(on.db))
      : open(context.db));
  } catch (error) {
    clearTimeout(timer);
    leave();
    throw error;
  }
  const { session, head } = opened;
  const headers = exportHeaders(request, head);
  if (request.head) {
    clearTimeout(timer);
    leave();
    void session.close();
    return { status: 200, headers, body: null };
  }
  const stream = new ExportStream(services, request, session, head, stopping, () => {
    clearTimeout(timer);
    leave();
    void session.close();
  });
  return { status: 200, headers, body: null, stream };
}

/** The session on `db` and the head statement, in one turn of the client's database share. */
async function openAt(
  services: ExportServices,
  request: ExportRequest,
  db: Database,
): Promise<{ session: ExportSession; head: ExportHead }> {
  const { config } = services.context;
  const turn = services.turn(request.client);
  return whileHolding(turn instanceof Promise ? await turn : turn, async () => {
    const session = await openExportSession(db, {
      acquireMs: config.readAcquireTimeoutMs,
      idleMs: config.exports.deadlineMs + 10_000,
      // The head counts up to EXPORT_MAX_ROWS rows: bounded by the export's deadline, not a read's.
      headMs: Math.max(config.readStatementTimeoutMs, config.exports.deadlineMs),
      statementMs: config.readStatementTimeoutMs,
    });
    try {
      const { maxRows, chunkRows } = config.exports;
      const rows = { limit: maxRows, first: request.head ? 0 : Math.min(chunkRows, maxRows) };
      const head = await request.list.head(services.context, session.db, request.parsed, rows);
      await session.headDone();
      return { session, head };
    } catch (error) {
      void session.close();
      throw error;
    }
  });
}

function exportHeaders(request: ExportRequest, head: ExportHead): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': CSV_CONTENT_TYPE,
    'content-disposition': `attachment; filename="${request.list.name}-${request.parsed.address}-${head.block}.csv"`,
    'cache-control': 'no-store',
    vary: 'accept',
    [INDEXED_BLOCK_HEADER]: String(head.block),
    'x-export-rows': String(head.rows),
  };
  if (head.next !== null) {
    const query = new URLSearchParams(request.query);
    query.set('format', 'csv');
    query.set('cursor', head.next);
    headers['x-export-truncated'] = 'row_limit';
    headers.link = `<${request.path}?${query.toString()}>; rel="next"`;
  }
  return headers;
}

/** The body of one export, read a chunk (one statement; the first, the head) at a time. */
class ExportStream implements StreamedBody {
  private written = 0;
  /** What was read and is not written yet: one chunk's pieces at most. */
  private pieces: (string | Uint8Array)[];
  private position: ExportPosition;
  /** The client's debt after the last chunk's charge: waited for before the next statement. */
  private debt: number | Promise<number> = 0;
  private done = false;

  constructor(
    private readonly services: ExportServices,
    private readonly request: ExportRequest,
    private readonly session: ExportSession,
    private readonly head: ExportHead,
    private readonly stopping: AbortController,
    private readonly release: () => void,
  ) {
    this.pieces = [request.list.header, ...head.first.pieces].reverse();
    // The deadline (or the client leaving) ends the export wherever it is: mid-statement, waiting
    // for its debt, or waiting for the client to read what it was sent.
    stopping.signal.addEventListener('abort', () => this.finish(stopping.signal.reason), { once: true });
    this.position = { after: head.first.last ?? ['', ''], block: head.block, seq: head.seq };
    this.charge(head.first.rows);
    this.written = head.first.rows;
  }

  get signal(): AbortSignal {
    return this.stopping.signal;
  }

  async next(): Promise<string | Uint8Array | null> {
    const piece = this.pieces.pop();
    if (piece !== undefined) return piece;
    if (this.done) throw this.stopping.signal.reason ?? new ExportCut('client_gone');
    try {
      if (this.written >= this.head.rows) {
        this.finish(undefined);
        return null;
      }
      const ms = await abortable(this.debt, this.signal);
      if (ms > 0) await abortable(sleep(ms), this.signal);
      // A chunk, or what the limit leaves: statements come in two sizes only (each compiled once).
      const { maxRows, chunkRows } = this.services.context.config.exports;
      const rows = Math.min(chunkRows, maxRows - this.written);
      const chunk = await this.read(rows);
      // Rows the head counted are there in a snapshot; elsewhere the list checked its position.
      if (chunk.rows !== Math.min(rows, this.head.rows - this.written)) throw new ExportCut('index_moved');
      this.written += chunk.rows;
      // A chunk short of `rows` is the last: only a full one names where the next starts.
      if (chunk.last) this.position = { ...this.position, after: chunk.last };
      this.charge(chunk.rows);
      this.pieces = chunk.pieces.reverse();
      return this.pieces.pop() ?? '';
    } catch (error) {
      this.finish(error);
      throw error;
    }
  }

  cancel(): void {
    if (!this.done) this.stopping.abort(new ExportCut('client_gone'));
  }

  /** One chunk in one turn of the client's database share; a cut ends the wait, not the statement. */
  private async read(rows: number): Promise<ExportChunk> {
    const turn = this.services.turn(this.request.client);
    const release =
      turn instanceof Promise
        ? await abortable(turn, this.signal).catch((error: unknown) => {
            void turn.then(
              (late) => late(),
              () => {},
            );
            throw error;
          })
        : turn;
    const { list, parsed } = this.request;
    return whileHolding(release, () =>
      abortable(list.chunk(this.session.db, parsed, this.position, rows), this.signal),
    );
  }

  private charge(rows: number): void {
    const { charge } = this.services;
    if (!charge || rows === 0) return;
    this.debt = Promise.resolve(charge(this.request.client ?? 'anonymous', rows)).catch(() => 0);
  }

  private finish(error: unknown): void {
    if (this.done) return;
    this.done = true;
    this.release();
    const line = {
      requestId: this.request.requestId,
      export: this.request.list.name,
      rows: this.written,
      of: this.head.rows,
    };
    if (error === undefined) this.services.logger.info(line, 'csv export done');
    else if (error instanceof ExportCut)
      this.services.logger.warn({ ...line, cut: error.reason }, 'csv export cut');
    else
      this.services.logger.warn(
        { ...line, err: error instanceof Error ? error.message : String(error) },
        'csv export failed',
      );
  }
}

/** `work`'s outcome, or the signal's reason once it is aborted (the work itself runs on). */
function abortable<T>(work: T | Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (!(work instanceof Promise)) return Promise.resolve(work);
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', stop);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(error);
      },
    );
  });
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
