import { parseResumeToken, type ResumeToken } from '../../shared/api/stream';
import type { ChainView, ViewLog } from '../oracle/chain-view';
import type { Difference } from '../oracle/compare';
import type { Oracle } from '../oracle/model';
import { type Json, walkPages } from '../oracle/walk';
import { AppliedStream, parseFrames } from '../stream-client';

/**
 * The chaos runs' stream consumer: one client of `GET /api/v1/stream` that holds the stream
 * through a whole seed, written as docs/api.md tells a client to be. It applies every event,
 * drops what a `reorg` replaced, refetches over the REST API on `reset`, and reconnects with its
 * last id whenever the connection ends: the server restarting, an `overflow`, or its own
 * disconnects. At the end what it holds must equal the oracle's launches, trades and graduations.
 */
export interface StreamConsumer {
  readonly applied: AppliedStream;
  /** Connections, reorgs, resets and checkpoints as they came (not each event): for a failing seed. */
  readonly trace: string[];
  readonly stats: {
    connections: number;
    /** Connections it dropped itself. */
    disconnects: number;
    /** Connections that ended otherwise (server gone, overflow). */
    dropped: number;
    refetches: number;
  };
  /** Follows the stream of this server from now on (a restart: the new process). */
  attach(baseUrl: string | undefined): void;
  /** Drops the connection now; it reconnects with its last id after `pauseMs`. */
  disconnect(pauseMs: number): void;
  /** Resolves once its last id is at `position` or later (both its block and its seq). */
  reach(position: ResumeToken, timeoutMs: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `from`: the id it starts with, as if it held everything through that point (no id: it holds
 * nothing and starts at the stream's current block).
 */
export function startStreamConsumer(from?: string): StreamConsumer {
  const applied = new AppliedStream();
  applied.lastId = from;
  const start = from === undefined ? undefined : parseResumeToken(from);
  if (start) applied.block = start.block;
  const stats = { connections: 0, disconnects: 0, dropped: 0, refetches: 0 };
  const trace: string[] = [];
  let pendingEvents = 0;
  let baseUrl: string | undefined;
  let stopped = false;
  let connection: AbortController | undefined;
  let pauseUntil = 0;
  // A reset not yet refetched: nothing is resumed, and no position reached, before it succeeded.
  let refetchDue = false;
  let wake: (() => void) | undefined;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  /** What the REST API holds through `block`, in the shape of the stream's events. */
  const refetch = async (base: string) => {
    stats.refetches++;
    const tokens = (await walkPages(base, '/api/v1/tokens', 100)).items;
    applied.events.clear();
    for (const token of tokens) {
      const address = String(token.address);
      const activity = async (kind: string) =>
        (await walkPages(base, `/api/v1/tokens/${address}/activity?kind=${kind}`, 100)).items;
      for (const launch of await activity('launch'))
        applied.apply({
          type: 'launch',
          id: undefined,
          data: {
            address,
            name: token.name,
            symbol: token.symbol,
            creator: token.creator,
            created_at: token.created_at,
            block_number: launch.block_number,
            transaction_hash: launch.transaction_hash,
            log_index: launch.log_index,
          },
        });
      for (const trade of (await walkPages(base, `/api/v1/tokens/${address}/trades`, 100)).items)
        applied.apply({ type: 'trade', id: undefined, data: { ...trade, token_address: address } });
      for (const graduation of await activity('graduation'))
        applied.apply({
          type: 'graduation',
          id: undefined,
          data: {
            token_address: address,
            pool_address: (graduation.data as Json).pool,
            block_number: graduation.block_number,
            block_timestamp: graduation.block_timestamp,
            transaction_hash: graduation.transaction_hash,
            log_index: graduation.log_index,
          },
        });
    }
    // The stream resumes from the reset's block: anything later the pages showed may yet be
    // replaced without a reorg this client would be sent.
    applied.dropUncovered();
  };

  /** One connection, read until it ends or a `reset` arrives (true: refetch before the next). */
  const follow = async (base: string, abort: AbortController): Promise<boolean> => {
    applied.dropUncovered();
    const headers: Record<string, string> = applied.lastId ? { 'last-event-id': applied.lastId } : {};
    const response = await fetch(`${base}/api/v1/stream`, { headers, signal: abort.signal });
    if (response.status !== 200 || !response.body) {
      await response.body?.cancel();
      throw new Error(`stream answered ${response.status}`);
    }
    stats.connections++;
    trace.push(`connect ${base.slice(-5)} from ${applied.lastId} holding ${applied.events.size}`);
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      const parsed = parseFrames(buffer);
      buffer = parsed.rest;
      // Refetched outside the connection (leaving the loop cancels it): what follows the reset
      // is sent again on resume from its id.
      for (const frame of parsed.frames) {
        if (frame.type === 'launch' || frame.type === 'trade' || frame.type === 'graduation') pendingEvents++;
        else {
          trace.push(
            `${pendingEvents} events, ${frame.type} ${frame.id ?? ''} ${JSON.stringify(frame.data)}`,
          );
          pendingEvents = 0;
        }
        if (applied.apply(frame) === 'reset') return true;
      }
    }
    return false;
  };

  const loop = (async () => {
    while (!stopped) {
      const base = baseUrl;
      const wait = pauseUntil - Date.now();
      if (!base || wait > 0) {
        await sleep(base ? wait : 1_000);
        continue;
      }
      const abort = new AbortController();
      connection = abort;
      try {
        if (refetchDue) {
          await refetch(base);
          refetchDue = false;
        }
        refetchDue = await follow(base, abort);
      } catch {
        // The server went away, refused or was aborted: reconnect as EventSource would.
      }
      if (connection === abort && !abort.signal.aborted && !refetchDue) stats.dropped++;
      connection = undefined;
      if (!stopped && pauseUntil <= Date.now()) await sleep(100);
    }
  })();

  return {
    applied,
    trace,
    stats,
    attach(next) {
      baseUrl = next;
      connection?.abort();
      wake?.();
    },
    disconnect(pauseMs) {
      if (!connection) return;
      stats.disconnects++;
      pauseUntil = Date.now() + pauseMs;
      connection.abort();
    },
    async reach(position, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const at = () => parseResumeToken(applied.lastId ?? '');
      for (;;) {
        const held = at();
        if (!refetchDue && held && held.block >= position.block && (held.seq ?? -1) >= (position.seq ?? 0))
          return;
        if (Date.now() > deadline)
          throw new Error(
            `the stream consumer holds ${applied.lastId}, not ${position.block}-${position.seq}`,
          );
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      stopped = true;
      connection?.abort();
      wake?.();
      await loop;
    },
  };
}

/**
 * Where the stream of `baseUrl` stands once it has caught up with `block`: the id of the
 * checkpoint a new connection starts with. A new connection gets the poller's last position,
 * up to a poll behind the index, so it is asked again until that reaches `block`.
 */
export async function streamPosition(
  baseUrl: string,
  block: number,
  timeoutMs: number,
): Promise<ResumeToken> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const position = await firstCheckpoint(baseUrl);
    if (position.block >= block) return position;
    if (Date.now() > deadline) throw new Error(`the stream stands at ${position.block}, not ${block}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function firstCheckpoint(baseUrl: string): Promise<ResumeToken> {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/api/v1/stream`, { signal: abort.signal });
  if (!response.body) throw new Error(`stream answered ${response.status}`);
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of response.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      const parsed = parseFrames(buffer);
      buffer = parsed.rest;
      const first = parsed.frames.find((frame) => frame.type === 'checkpoint');
      const position = first?.id === undefined ? undefined : parseResumeToken(first.id);
      if (position) return position;
    }
  } finally {
    abort.abort();
  }
  throw new Error('the stream ended without a checkpoint');
}

/** Sorted keys with every field compared: a difference names what differs. */
const trade = (data: Json) =>
  JSON.stringify(Object.fromEntries(Object.entries(data).sort(([a], [b]) => a.localeCompare(b))));
const launch = (d: Json) =>
  [d.address, d.name, d.symbol, d.creator, d.block_number, d.transaction_hash, d.log_index].join('|');
const graduation = (d: Json) =>
  [d.token_address, d.pool_address, d.block_number, d.transaction_hash, d.log_index].join('|');

/**
 * What the consumer holds against the oracle: launches and graduations from the canonical chain's
 * logs, trades as the oracle lists them. One difference per kind that differs.
 */
export function compareConsumerWithOracle(
  applied: Pick<AppliedStream, 'of'>,
  oracle: Oracle,
  view: ChainView,
  path = 'GET /api/v1/stream (chaos consumer)',
): Difference[] {
  const factoryLogs = (eventName: string) =>
    view.logs.filter((log) => log.eventName === eventName && log.address === view.factory);
  const provenance = (log: ViewLog) => ({
    block_number: log.blockNumber,
    transaction_hash: log.transactionHash,
    log_index: log.logIndex,
  });
  const expected = {
    launch: factoryLogs('TokenLaunched').map((log) =>
      launch({
        address: log.args.token,
        name: log.args.name,
        symbol: log.args.symbol,
        creator: log.args.creator,
        ...provenance(log),
      }),
    ),
    trade: oracle.tokenAddresses.flatMap((address) =>
      oracle.trades(address).map((item) => trade({ ...item, token_address: address })),
    ),
    graduation: factoryLogs('Graduated').map((log) =>
      graduation({ token_address: log.args.token, pool_address: log.args.pool, ...provenance(log) }),
    ),
  };
  const held = {
    launch: applied.of('launch').map(launch),
    trade: applied.of('trade').map(trade),
    graduation: applied.of('graduation').map(graduation),
  };
  const differences: Difference[] = [];
  for (const kind of ['launch', 'trade', 'graduation'] as const) {
    const want = [...expected[kind]].sort();
    const have = [...held[kind]].sort();
    const missing = want.filter((item) => !have.includes(item));
    const extra = have.filter((item) => !want.includes(item));
    if (missing.length > 0 || extra.length > 0 || want.length !== have.length)
      differences.push({
        path,
        message: `${kind}s: ${have.length} held, ${want.length} canonical`,
        expected: missing.slice(0, 3),
        actual: extra.slice(0, 3),
      });
  }
  return differences;
}
