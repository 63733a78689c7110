/**
 * Serial timing for `npm run bench:worst`: one request at a time, after PostgreSQL shows no other
 * statement running on the database, each candidate `repeat` times, its median kept.
 */
import type { Candidate } from './worst-candidates';
import type { Sql } from './worst-fixtures';

export interface Timing {
  candidate: Candidate;
  /** HTTP status of the last run (0: no answer within the client's timeout). */
  status: number;
  /** `error.code` of a JSON error answer, or the first event of a stream. */
  code: string | undefined;
  /** Median of the runs, ms. */
  ms: number;
  runs: number[];
  bytes: number;
  /** `next_cursor` of a 200 list answer. */
  nextCursor: string | null;
  /** Time spent waiting for other statements to finish before the first run, ms. */
  waitedMs: number;
}

export interface TimingOptions {
  baseUrl: string;
  repeat: number;
  /** A first run slower than this is not repeated (its noise is small next to its cost). */
  slowMs: number;
  timeoutMs: number;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

export { median };

/**
 * Waits until no other client backend runs a statement on this database (a request the client
 * gave up on may still run in PostgreSQL; nothing else may be in flight while timing).
 */
export async function waitForQuiet(sql: Sql, maxMs = 120_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const [row] = await sql<{ busy: number }[]>`
      select count(*)::int as busy from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid()
         and backend_type = 'client backend' and state not in ('idle')`;
    const waited = performance.now() - started;
    if ((row?.busy ?? 0) === 0 || waited > maxMs) return waited;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

interface Answer {
  status: number;
  code: string | undefined;
  bytes: number;
  nextCursor: string | null;
}

async function requestJson(url: string, timeoutMs: number): Promise<Answer> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const body = await response.text();
  let code: string | undefined;
  let nextCursor: string | null = null;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object') {
      const error = (parsed as { error?: { code?: unknown } }).error;
      if (error && typeof error.code === 'string') code = error.code;
      const next = (parsed as { next_cursor?: unknown }).next_cursor;
      if (typeof next === 'string') nextCursor = next;
    }
  } catch {
    // not JSON
  }
  return { status: response.status, code, bytes: Buffer.byteLength(body), nextCursor };
}

/** A server-sent event stream, read until its first `event:` (the end of the catch-up), then closed. */
async function requestStream(url: string, timeoutMs: number): Promise<Answer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetch(url, { signal: controller.signal });
    if (response.status !== 200 || !response.body) {
      const answer = await requestBodyAnswer(response);
      return answer;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
      const event = /^event: (\S+)$/m.exec(text);
      if (event) {
        controller.abort();
        return { status: 200, code: `event ${event[1]}`, bytes: Buffer.byteLength(text), nextCursor: null };
      }
    }
    return { status: 200, code: 'ended without an event', bytes: Buffer.byteLength(text), nextCursor: null };
  } finally {
    clearTimeout(timer);
  }
}

async function requestBodyAnswer(response: Response): Promise<Answer> {
  const body = await response.text();
  let code: string | undefined;
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown } };
    if (typeof parsed.error?.code === 'string') code = parsed.error.code;
  } catch {
    // not JSON
  }
  return { status: response.status, code, bytes: Buffer.byteLength(body), nextCursor: null };
}

/** Times one candidate `repeat` times (once when its first run exceeds `slowMs`), serially. */
export async function timeCandidate(sql: Sql, candidate: Candidate, options: TimingOptions): Promise<Timing> {
  const url = `${options.baseUrl}${candidate.path}`;
  const runs: number[] = [];
  let answer: Answer = { status: 0, code: 'no answer', bytes: 0, nextCursor: null };
  let waitedMs = 0;
  for (let run = 0; run < options.repeat; run++) {
    const waited = await waitForQuiet(sql);
    if (run === 0) waitedMs = waited;
    const started = performance.now();
    try {
      answer =
        candidate.kind === 'stream'
          ? await requestStream(url, options.timeoutMs)
          : await requestJson(url, options.timeoutMs);
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      answer = {
        status: 0,
        code:
          name === 'TimeoutError' || name === 'AbortError'
            ? `no answer within ${options.timeoutMs} ms`
            : String(error),
        bytes: 0,
        nextCursor: null,
      };
    }
    runs.push(performance.now() - started);
    if (answer.status === 0 || (run === 0 && (runs[0] ?? 0) > options.slowMs)) break;
  }
  return {
    candidate,
    status: answer.status,
    code: answer.code,
    ms: median(runs),
    runs,
    bytes: answer.bytes,
    nextCursor: answer.nextCursor,
    waitedMs,
  };
}
