/**
 * Serial timing for `npm run bench:worst` and the markdown of a run: one request at a time, after
 * PostgreSQL shows no other statement running on the database, each candidate `repeat` times, its
 * median kept; `--write` puts the report into docs/benchmarks.md between the bench:worst markers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { load } from './report';
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

type Answer = Pick<Timing, 'status' | 'code' | 'bytes' | 'nextCursor'>;
type TimingOptions = { baseUrl: string; repeat: number; slowMs: number; timeoutMs: number };
const noAnswer = (code: string): Answer => ({ status: 0, code, bytes: 0, nextCursor: null });

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
};

/**
 * Waits until no other client backend runs a statement on this database (a request the client
 * gave up on may still run in PostgreSQL; nothing else may be in flight while timing).
 */
export async function waitForQuiet(sql: Sql): Promise<number> {
  const started = performance.now();
  for (;;) {
    const [row] = await sql<{ busy: number }[]>`
      select count(*)::int as busy from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid()
         and backend_type = 'client backend' and state not in ('idle')`;
    const waited = performance.now() - started;
    if ((row?.busy ?? 0) === 0 || waited > 120_000) return waited;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One request; a 200 stream is read until its first `event:` (the end of the catch-up), then closed. */
async function request(candidate: Candidate, { baseUrl, timeoutMs }: TimingOptions): Promise<Answer> {
  const stream = candidate.kind === 'stream';
  const controller = new AbortController();
  const signal = AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)]);
  const response = await fetch(`${baseUrl}${candidate.path}`, { signal });
  if (!stream || response.status !== 200 || !response.body) {
    const body = await response.text();
    let parsed: { error?: { code?: unknown }; next_cursor?: unknown } | null = null;
    try {
      parsed = JSON.parse(body);
    } catch {
      // not JSON
    }
    const code = parsed?.error?.code;
    const next = parsed?.next_cursor;
    return {
      status: response.status,
      code: typeof code === 'string' ? code : undefined,
      bytes: Buffer.byteLength(body),
      nextCursor: !stream && typeof next === 'string' ? next : null,
    };
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (!done) text += decoder.decode(value, { stream: true });
    const event = /^event: (\S+)$/m.exec(text);
    if (event || done) {
      controller.abort();
      const code = event ? `event ${event[1]}` : 'ended without an event';
      return { status: 200, code, bytes: Buffer.byteLength(text), nextCursor: null };
    }
  }
}

/** Times one candidate `repeat` times (once when its first run exceeds `slowMs`: its noise is small next to its cost), serially. */
export async function timeCandidate(sql: Sql, candidate: Candidate, options: TimingOptions): Promise<Timing> {
  const runs: number[] = [];
  let answer = noAnswer('no answer');
  let waitedMs = 0;
  for (let run = 0; run < options.repeat; run++) {
    const waited = await waitForQuiet(sql);
    if (run === 0) waitedMs = waited;
    const started = performance.now();
    try {
      answer = await request(candidate, options);
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      answer = noAnswer(timedOut ? `no answer within ${options.timeoutMs} ms` : String(error));
    }
    runs.push(performance.now() - started);
    if (answer.status === 0 || (run === 0 && (runs[0] ?? 0) > options.slowMs)) break;
  }
  return { candidate, ...answer, ms: median(runs), runs, waitedMs };
}

export interface RouteSummary {
  route: string;
  timings: Timing[];
  /** How the candidates were chosen when not the route's own (an alias timed on its twin's slowest). */
  note?: string;
}

export interface WorstContext {
  command: string;
  postgresVersion: string;
  dataset: string;
  repeat: number;
  slowMs: number;
  loadBefore: number[];
  loadAfter: number[];
  seconds: number;
  fixtures: string[];
  /** Routes of the OpenAPI document without candidates (should be none). */
  uncovered: string[];
  /** The server exited while this request was in flight (it was restarted). */
  crashes: { route: string; params: string; output: string; retry: string }[];
}

const ms = (value: number) => (value >= 100 ? value.toFixed(0) : value.toFixed(1));
const cell = (text: string) => text.replaceAll('|', '\\|');
const routeCell = (route: string) => `\`${route.replace(/^GET /, '')}\``;
const named = (timing: Timing) => `${routeCell(timing.candidate.route)} ${cell(timing.candidate.params)}`;
const statusOf = (timing: Timing) =>
  timing.status === 200 && timing.candidate.kind !== 'stream'
    ? '200'
    : `${timing.status}${timing.code ? ` ${timing.code}` : ''}`;

/** The worst candidate of a route: slowest median. */
export const worstOf = (summary: RouteSummary): Timing | undefined =>
  [...summary.timings].sort((a, b) => b.ms - a.ms)[0];

/** The markdown of one run: context, the per-route table (worst first), the slowest candidates, refusals. */
export function renderWorst(c: WorstContext, summaries: RouteSummary[], topN = 15): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const all = summaries.flatMap((summary) => summary.timings);
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB,`,
    `Node ${process.version}, ${c.postgresVersion} on loopback; ${c.dataset}.`,
    `${all.length.toLocaleString('en-US')} candidate requests, each timed ${c.repeat} times serially (median kept; a first run over ${c.slowMs.toLocaleString('en-US')} ms is not repeated),`,
    `${Math.round(c.seconds)} s in all; load average (1/5/15 min) ${load(c.loadBefore)} before, ${load(c.loadAfter)} after.`,
    `Command: \`${c.command}\`. Fixtures: ${c.fixtures.join('; ')}.`,
    '',
    ...markdownTable(
      ['route', 'worst parameters', 'status', 'worst ms', 'p50 ms', 'candidates'],
      [...summaries]
        .sort((a, b) => (worstOf(b)?.ms ?? 0) - (worstOf(a)?.ms ?? 0))
        .map((summary) => {
          const worst = worstOf(summary);
          return [
            routeCell(summary.route),
            cell(worst ? worst.candidate.params : '—'),
            worst ? statusOf(worst) : '—',
            worst ? ms(worst.ms) : '—',
            ms(median(summary.timings.map((timing) => timing.ms))),
            `${summary.timings.length}${summary.note ? ` (${summary.note})` : ''}`,
          ];
        }),
      'lllrrr',
    ),
  ];
  for (const crash of c.crashes)
    lines.push(
      '',
      `**The server exited** during ${routeCell(crash.route)} ${cell(crash.params)} and was restarted; ${crash.retry}. Its last output: \`${cell(crash.output.split('\n').slice(-3).join(' ⏎ ').slice(0, 400))}\`.`,
    );
  if (c.uncovered.length > 0)
    lines.push('', `Routes of the OpenAPI document without candidates: ${c.uncovered.join(', ')}.`);

  lines.push(
    '',
    `The ${topN} slowest candidates of the run:`,
    '',
    ...markdownTable(
      ['#', 'route', 'parameters', 'status', 'ms', 'runs ms'],
      [...all]
        .sort((a, b) => b.ms - a.ms)
        .slice(0, topN)
        .map((timing, index) => [
          String(index + 1),
          routeCell(timing.candidate.route),
          cell(timing.candidate.params),
          statusOf(timing),
          ms(timing.ms),
          timing.runs.map(ms).join(', '),
        ]),
      'rlllrl',
    ),
  );

  const unusual = all.filter((timing) => ![200, 400, 404].includes(timing.status));
  lines.push(
    '',
    unusual.length === 0
      ? 'Every answer was 200, 400 or 404 (no 5xx, no timeout).'
      : `Answers other than 200, 400 and 404 (${unusual.length}): ${unusual
          .map((timing) => `${named(timing)} → ${statusOf(timing)} in ${ms(timing.ms)} ms`)
          .join('; ')}.`,
  );

  const refused = all.filter((timing) => timing.status === 400);
  lines.push('', `Refused with 400 (${refused.length} candidates; an acceptable outcome):`, '');
  const groups = new Map<string, Timing[]>();
  for (const timing of refused) {
    const key = `${timing.candidate.route}\u0000${timing.code ?? '?'}`;
    groups.set(key, [...(groups.get(key) ?? []), timing]);
  }
  for (const [key, timings] of groups) {
    const [route, code] = key.split('\u0000') as [string, string];
    const slowest = Math.max(...timings.map((timing) => timing.ms));
    // Parameters every request of the group shares are said once.
    const parts = timings.map((timing) => timing.candidate.params.split(', '));
    const common =
      timings.length > 1
        ? (parts[0] ?? []).filter((part) => parts.every((other) => other.includes(part)))
        : [];
    const shown = parts.map((own) =>
      cell(own.filter((part) => !common.includes(part)).join(', ') || '(same)'),
    );
    lines.push(
      `- ${routeCell(route)} \`${code}\` (${timings.length}, slowest ${ms(slowest)} ms)${common.length > 0 ? `, all with ${cell(common.join(', '))}` : ''}: ${shown.join('; ')}`,
    );
  }
  const notFound = all.filter((timing) => timing.status === 404);
  if (notFound.length > 0)
    lines.push('', `Answered 404 (${notFound.length}): ${notFound.map(named).join('; ')}.`);
  return lines.join('\n');
}

/** A markdown table laid out as Biome formats it; `align[i]` is `r` where column i is right-aligned. */
function markdownTable(header: string[], rows: string[][], align: string): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, 3, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((text, column) => (align[column] === 'r' ? text.padStart(widths[column] ?? 0) : text.padEnd(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (align[column] === 'r' ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)];
}

const start = '<!-- bench:worst:start -->';
const end = '<!-- bench:worst:end -->';

/** What the section says about its method (written once, when the section is created). */
const method = `## Worst case per route (\`npm run bench:worst\`)

\`npm run bench:worst\` (\`bench/worst.ts\`) looks for the slowest answer of every GET route of
\`/api/v1\` over the parameters the API accepts. Same machine and database as \`npm run bench\` (1,000,000
tokens / 20,000,000 trades; it never seeds), Launchdex as in its uncached column (\`npm run serve\`, one
process, indexer off, \`READ_CACHE_MB=0\`, rate limits out of reach, a known \`CURSOR_SECRET\` to mint
cursors). Candidates come from SQL on the dataset: the busiest token, the one with most holders, the
newest, the creator with most tokens, the wallet with most balances, the densest search prefixes and a
spread of match counts, cursors at the first, middle and last keys of every list and at the bounds of
each key's range. Each is requested alone (no other statement running on the database), three times,
median kept: a serial uncached request's wall time bounds its database time. Streams are timed to their
first event. The server's 2 s \`READ_STATEMENT_TIMEOUT_MS\` stays on (a cancelled read answers 503);
\`--statement-timeout-ms 0\` shows what such a read costs. Options: \`--only substr\`, \`--repeat N\`, \`--json file\`.`;

/** Puts `block` into docs/benchmarks.md between the bench:worst markers (adding the section after the bench:api one). */
export function writeWorst(file: string, block: string): void {
  const text = readFileSync(file, 'utf8');
  const marked = `${start}\n${block}\n${end}`;
  const anchor = text.indexOf('## Read API under load');
  const next = anchor < 0 ? -1 : text.slice(anchor + 1).search(/^## /m);
  const at = anchor + 1 + next;
  const section = `${method}\n\n${marked}\n`;
  writeFileSync(
    file,
    text.includes(start)
      ? text.replace(new RegExp(`${start}[\\s\\S]*${end}`), () => marked)
      : next < 0
        ? `${text.trimEnd()}\n\n${section}`
        : `${text.slice(0, at)}${section}\n${text.slice(at)}`,
  );
}
