import { LaunchdexError, sleep } from './retry';
import type { paths } from './schema.generated';

/** A trade as `/tokens/{address}/trades` lists it (with `token_address`). */
export type TradeEventData =
  paths['/api/v1/tokens/{address}/trades']['get']['responses'][200]['content']['application/json']['items'][number];

export interface LaunchEventData {
  address: string;
  name: string;
  symbol: string;
  creator: string;
  created_at: number;
  block_number: number;
  transaction_hash: string;
  log_index: number;
}

export interface GraduationEventData {
  token_address: string;
  pool_address: string;
  block_number: number;
  block_timestamp: number;
  transaction_hash: string;
  log_index: number;
}

/** The events of `GET /api/v1/stream` (docs/api.md, "Live stream"). */
export type StreamEvent =
  | { type: 'launch'; data: LaunchEventData }
  | { type: 'trade'; data: TradeEventData }
  | { type: 'graduation'; data: GraduationEventData }
  /** Every event of the blocks up to this one came before it. `id` resumes after it. */
  | { type: 'checkpoint'; id: string; data: { indexed_through_block: number } }
  /** Blocks after this one were replaced: drop what you hold of them; the canonical events follow. */
  | { type: 'reorg'; id: string; data: { indexed_through_block: number } }
  /** Events were not sent in detail (too many, or a resume from too far back): refetch what you show. */
  | { type: 'reset'; id: string; data: { indexed_through_block: number; reason: string } }
  /** This client read too slowly and was disconnected; the follower reconnects by itself. */
  | { type: 'overflow'; data: { reason: string } };

type ChainEvent = Extract<StreamEvent, { type: 'launch' | 'trade' | 'graduation' }>;

export interface StreamOptions {
  /** Only this token's launch, trade and graduation events (checkpoints always). */
  token?: string;
  /** Resume after this id: the `id` of a checkpoint, reorg or reset kept from an earlier run. */
  since?: string;
  /**
   * Reconnect when no byte arrived for this long (default 45 s, three of the server's 15 s
   * heartbeats): a connection a network dropped silently never ends by itself.
   */
  idleTimeoutMs?: number;
  /** Ends the iteration (as leaving a `for await` does). */
  signal?: AbortSignal;
}

/** Opens one connection resuming after `lastId`; throws {@link LaunchdexError} when it is refused. */
export type OpenStream = (
  lastId: string | undefined,
  signal: AbortSignal,
) => Promise<ReadableStream<Uint8Array>>;

/** Until the server's `retry:` says otherwise (it sends 3000). */
const DEFAULT_RECONNECT_MS = 3_000;

interface Frame {
  event: string;
  data: string;
  id: string | undefined;
}

/**
 * A server-sent events parser (WHATWG HTML, "Interpreting an event stream"): text in, complete
 * frames out; `retryMs` holds the connection's last `retry:`. Frames without data (comments,
 * `retry:`) are not events.
 */
function eventParser() {
  let rest = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  const parser = {
    retryMs: undefined as number | undefined,
    push(text: string): Frame[] {
      const frames: Frame[] = [];
      rest += text;
      let start = 0;
      // Looked up again only once passed: a stream of LF lines is scanned for CR once per push.
      let cr = rest.indexOf('\r');
      for (;;) {
        if (cr >= 0 && cr < start) cr = rest.indexOf('\r', start);
        const lf = rest.indexOf('\n', start);
        const end = cr >= 0 && (lf < 0 || cr < lf) ? cr : lf;
        // A line ends at CR, LF or CRLF: a CR last in the text may be the first half of a CRLF.
        if (end < 0 || (end === cr && cr === rest.length - 1)) break;
        const line = rest.slice(start, end);
        start = end + (rest.startsWith('\r\n', end) ? 2 : 1);
        if (line === '') {
          if (data.length > 0) frames.push({ event: event || 'message', data: data.join('\n'), id });
          event = '';
          data = [];
          id = undefined;
          continue;
        }
        const colon = line.indexOf(':');
        if (colon === 0) continue;
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id' && !value.includes('\0')) id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) parser.retryMs = Number(value);
      }
      rest = rest.slice(start);
      return frames;
    },
  };
  return parser;
}

const eventTypes = new Set(['launch', 'trade', 'graduation', 'checkpoint', 'reorg', 'reset', 'overflow']);

/**
 * Follows the stream for as long as the caller iterates: when a connection ends, fails or stays
 * silent past `idleTimeoutMs`, it waits the server's `retry:` delay and reconnects with the last
 * id as `Last-Event-ID`, and the server replays what was missed. Launches, trades and graduations
 * are handed over only together with the checkpoint (or reorg, or reset) that covers them, so a
 * reconnect never repeats an event, nor leaves one of a branch replaced meanwhile in the caller's
 * hands. Throws {@link LaunchdexError} when the server refuses the stream (a malformed `token`, or
 * Retry-After waits exhausted); reconnects on everything else.
 */
export async function* followStream(
  open: OpenStream,
  options: StreamOptions = {},
): AsyncGenerator<StreamEvent, void, undefined> {
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  let lastId = options.since;
  let reconnectMs = DEFAULT_RECONNECT_MS;
  while (!options.signal?.aborted) {
    const connection = new AbortController();
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    // Cancelling the reader too ends a read in flight whatever the fetch does with its signal.
    const hangUp = (reason: unknown) => {
      connection.abort(reason);
      reader?.cancel(reason).catch(() => {});
    };
    const stop = () => hangUp(options.signal?.reason);
    options.signal?.addEventListener('abort', stop, { once: true });
    let idle: ReturnType<typeof setTimeout> | undefined;
    // Paused while the caller holds an event: a slow caller is not a silent network.
    const watch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => hangUp(new Error(`stream silent for ${idleTimeoutMs} ms`)), idleTimeoutMs);
    };
    const pause = () => clearTimeout(idle);
    try {
      watch();
      reader = (await open(lastId, connection.signal)).getReader();
      const decoder = new TextDecoder();
      const parser = eventParser();
      let pending: ChainEvent[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        watch();
        const frames = parser.push(decoder.decode(value, { stream: true }));
        reconnectMs = parser.retryMs ?? reconnectMs;
        for (const frame of frames) {
          if (!eventTypes.has(frame.event)) continue;
          let data: unknown;
          try {
            data = JSON.parse(frame.data);
          } catch {
            throw new LaunchdexError(
              `stream event ${frame.event} carries no JSON: ${frame.data.slice(0, 100)}`,
              200,
              undefined,
            );
          }
          const event = {
            type: frame.event,
            data,
            ...(frame.id === undefined ? {} : { id: frame.id }),
          } as StreamEvent;
          if (event.type === 'launch' || event.type === 'trade' || event.type === 'graduation') {
            pending.push(event);
            continue;
          }
          pause();
          if (event.type !== 'overflow') {
            lastId = event.id;
            const through = event.data.indexed_through_block;
            const covered = pending.filter((held) => held.data.block_number <= through);
            pending = [];
            for (const held of covered) yield held;
          }
          yield event;
          if (options.signal?.aborted) return;
          watch();
        }
      }
    } catch (error) {
      if (error instanceof LaunchdexError) throw error;
      if (options.signal?.aborted) return;
    } finally {
      clearTimeout(idle);
      options.signal?.removeEventListener('abort', stop);
      hangUp(undefined);
    }
    try {
      await sleep(reconnectMs, options.signal);
    } catch {
      return;
    }
  }
}
