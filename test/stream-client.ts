/**
 * A stream consumer as docs/api.md ("Live stream") tells one to be written: it parses server-sent
 * events, keeps every launch, trade and graduation it receives keyed by its log, drops what a
 * `reorg` says was replaced, and remembers the last id to resume with. Shared by the stream's
 * reorg tests and the chaos runs' consumer; nothing in it knows the server's code.
 */

export interface Frame {
  type: string;
  id: string | undefined;
  data: Record<string, unknown>;
}

/**
 * Splits `buffer` into complete frames and what is left of an incomplete one; `retry:` lines and
 * comments carry no event and are skipped.
 */
export function parseFrames(buffer: string): { frames: Frame[]; rest: string } {
  const frames: Frame[] = [];
  let rest = buffer;
  let end = rest.indexOf('\n\n');
  while (end >= 0) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    end = rest.indexOf('\n\n');
    const type = /^event: (\w+)$/m.exec(block)?.[1];
    if (!type) continue;
    frames.push({
      type,
      id: /^id: (\S+)$/m.exec(block)?.[1],
      data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? '{}') as Record<string, unknown>,
    });
  }
  return { frames, rest };
}

/**
 * Reads what an in-process subscriber holds for its reader (its bytes and how many events are
 * queued), leaving the stream open.
 */
export async function readQueued(subscriber: {
  stream: ReadableStream<Uint8Array>;
  readonly queued: number;
}): Promise<Frame[]> {
  const reader = subscriber.stream.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (subscriber.queued > 0) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value);
  }
  reader.releaseLock();
  return parseFrames(text).frames;
}

/** An event as the consumer holds it: its block (what a reorg drops by) and its data. */
export interface Held {
  block: number;
  data: Record<string, unknown>;
}

/** Launches, trades and graduations as a consumer applied them. */
export class AppliedStream {
  /** By `<type>:<transaction hash>:<log index>`: a replayed event replaces itself. */
  readonly events = new Map<string, Held>();
  /** The id to resume with: the last checkpoint's, reorg's or reset's. */
  lastId: string | undefined;
  /** The block of the last checkpoint (or reorg/reset). */
  block = 0;
  readonly counts = { reorgs: 0, resets: 0, checkpoints: 0, events: 0, overflows: 0 };
  /** The lowest block a received reorg kept. */
  lowestReorg: number | undefined;

  /** Applies one frame; a `reset` is returned for the caller to refetch. */
  apply(frame: Frame): 'reset' | undefined {
    switch (frame.type) {
      case 'launch':
      case 'trade':
      case 'graduation': {
        const block = Number(frame.data.block_number);
        this.events.set(`${frame.type}:${frame.data.transaction_hash}:${frame.data.log_index}`, {
          block,
          data: frame.data,
        });
        this.counts.events++;
        return undefined;
      }
      case 'reorg': {
        const kept = Number(frame.data.indexed_through_block);
        for (const [key, held] of this.events) if (held.block > kept) this.events.delete(key);
        this.counts.reorgs++;
        this.lowestReorg = Math.min(this.lowestReorg ?? kept, kept);
        this.block = kept;
        this.lastId = frame.id;
        return undefined;
      }
      case 'checkpoint':
        this.counts.checkpoints++;
        this.block = Number(frame.data.indexed_through_block);
        this.lastId = frame.id;
        return undefined;
      case 'reset':
        this.counts.resets++;
        this.block = Number(frame.data.indexed_through_block);
        this.lastId = frame.id;
        return 'reset';
      case 'overflow':
        this.counts.overflows++;
        return undefined;
      default:
        throw new Error(`unknown stream event ${frame.type}`);
    }
  }

  /**
   * Before resuming from `lastId`: events received after it are not covered by it, and the
   * server sends them again (or, replaced, never): they go.
   */
  dropUncovered(): void {
    for (const [key, held] of this.events) if (held.block > this.block) this.events.delete(key);
  }

  /** Keys of one kind, sorted. */
  keys(type: 'launch' | 'trade' | 'graduation'): string[] {
    return [...this.events.keys()].filter((key) => key.startsWith(`${type}:`)).sort();
  }

  /** The data of one kind in chain order. */
  of(type: 'launch' | 'trade' | 'graduation'): Record<string, unknown>[] {
    return [...this.events.entries()]
      .filter(([key]) => key.startsWith(`${type}:`))
      .map(([, held]) => held.data)
      .sort(
        (a, b) =>
          Number(a.block_number) - Number(b.block_number) || Number(a.log_index) - Number(b.log_index),
      );
  }
}
