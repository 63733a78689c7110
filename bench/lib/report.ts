import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { Run } from './measure';

/** One route class: Launchdex and the floor at the throughput and the latency concurrency. */
export interface RouteResult {
  label: string;
  /** `identical`: same bytes; `same fields`: same keys and JSON types; else what differs. */
  shape: string;
  launchdex: { throughput: Run; latency: Run };
  floor: { throughput: Run; latency: Run };
  /** Launchdex as shipped (read cache on), the same URL over and over: answered from memory. */
  cached?: { throughput: Run; latency: Run };
}

/** What every report states about its run: the command, the database, the dataset and the load. */
export interface RunContext {
  command: string;
  postgresVersion: string;
  tokens: number;
  trades: number;
  loadBefore: number[];
  loadAfter: number[];
}

export interface ReportContext extends RunContext {
  seedSeconds: number;
  seedDate: string;
  launchdexWorkers: number;
  floorWorkers: number;
  workersAsked: number;
  duration: number;
  warmup: number;
  throughputConnections: number;
  latencyConnections: number;
}

const cpuMs = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '—');
export const load = (values: number[]) => values.map((value) => value.toFixed(1)).join(' / ');

/** Whether two servers' answers agree: the same bytes, or the same fields (keys, order, JSON types). */
export const agrees = (shape: string) => shape === 'identical' || shape === 'same fields';
/** A route's label, marked † when the servers' answers differ (the table's notes say how). */
export const markedLabel = (r: { label: string; shape: string }) =>
  `${r.label}${agrees(r.shape) ? '' : ' †'}`;

/** Headings of Launchdex against the floor: req/s at the throughput concurrency, their ratio, p99 at the latency one. */
export const versusHeadings = (c: { throughputConnections: number; latencyConnections: number }) => [
  `Launchdex req/s (${c.throughputConnections})`,
  `floor req/s (${c.throughputConnections})`,
  'Launchdex ÷ floor',
  `Launchdex p99 ms (${c.latencyConnections})`,
  `floor p99 ms (${c.latencyConnections})`,
];

/** The cells under {@link versusHeadings}; `—` where Launchdex has no run. */
export function versusCells(
  launchdex: { throughput: Run; latency: Run } | undefined,
  floor: { throughput: Run; latency: Run },
): string[] {
  const ratio = launchdex
    ? launchdex.throughput.requestsPerSecond / floor.throughput.requestsPerSecond
    : Number.NaN;
  return [
    String(launchdex?.throughput.requestsPerSecond ?? '—'),
    String(floor.throughput.requestsPerSecond),
    Number.isFinite(ratio) ? ratio.toFixed(2) : '—',
    String(launchdex?.latency.p99 ?? '—'),
    String(floor.latency.p99),
  ];
}

/** `Measured <date> on <machine>, Node …, PostgreSQL … on loopback.` */
export function machineLine(postgresVersion: string): string {
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${postgresVersion} on loopback.`;
}

/** The markdown of one benchmark run: what ran where, the table, and every caveat it found. */
export function renderReport(context: ReportContext, results: RouteResult[]): string {
  const c = context;
  const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
  const workers = (n: number) => `${n} ${n === 1 ? 'process' : 'workers'}`;
  const withCache = results.some((r) => r.cached);
  const cachedNote = withCache
    ? [
        'Last three columns: Launchdex as shipped (read cache on), one URL over and over, so every answer',
        'after the first comes from memory (an indexed block empties that cache); the ratio is to the same floor run.',
      ]
    : [];
  const lines = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB,`,
    `Node ${process.version}, ${c.postgresVersion} on loopback. Dataset: ${c.tokens.toLocaleString('en-US')} tokens /`,
    `${c.trades.toLocaleString('en-US')} trades (\`npm run seed:scale\`, ${c.seedDate}, ${c.seedSeconds.toLocaleString('en-US')} s).`,
    `Launchdex: \`npm run serve\`, ${workers(c.launchdexWorkers)}, indexer off, \`LOG_LEVEL=warn\` (no request log lines),`,
    `\`READ_CACHE_MB=0\` (every request reads the database, as the floor's do);`,
    `floor: \`bench/floor.ts\`, ${workers(c.floorWorkers)}.`,
    ...cachedNote,
    `autocannon in the bench process on the same machine, ${c.duration} s per run after ${c.warmup} s of warm-up per server`,
    `and route; load average (1/5/15 min) ${load(c.loadBefore)} before, ${load(c.loadAfter)} after.`,
    `Command: \`${c.command}\`.`,
    ...(c.workersAsked !== c.launchdexWorkers
      ? [
          '',
          `Asked for ${c.workersAsked} workers, but Launchdex ran ${workers(c.launchdexWorkers)}; the floor ran as many.`,
        ]
      : []),
    '',
    ...markdownTable(
      [
        'route',
        ...versusHeadings(c),
        'Launchdex CPU ms/req',
        'floor CPU ms/req',
        ...(withCache
          ? [
              `cache on: req/s (${c.throughputConnections})`,
              'cache on ÷ floor',
              `cache on: p99 ms (${c.latencyConnections})`,
            ]
          : []),
      ],
      results.map((r) => [
        markedLabel(r),
        ...versusCells(r.launchdex, r.floor),
        cpuMs(r.launchdex.throughput.cpuMsPerRequest),
        cpuMs(r.floor.throughput.cpuMsPerRequest),
        ...(withCache
          ? [
              String(r.cached?.throughput.requestsPerSecond ?? '—'),
              r.cached
                ? (r.cached.throughput.requestsPerSecond / r.floor.throughput.requestsPerSecond).toFixed(2)
                : '—',
              String(r.cached?.latency.p99 ?? '—'),
            ]
          : []),
      ]),
    ),
  ];
  const sameBytes = results.filter((r) => r.shape === 'identical').length;
  const sameFields = results.filter((r) => r.shape === 'same fields').length;
  const differing = results.filter((r) => !agrees(r.shape));
  lines.push(
    '',
    `Answers compared at start-up: ${sameBytes} of ${results.length} route classes byte-identical between the two servers, ${sameFields} with the same fields (keys, order, JSON types) but other bytes.`,
  );
  for (const r of differing)
    lines.push(`† ${r.label}: fields differ (${r.shape}); its ratio compares unlike answers.`);
  const errors = results.flatMap((r) =>
    (
      [
        ['Launchdex', r.launchdex.throughput],
        ['Launchdex', r.launchdex.latency],
        ['floor', r.floor.throughput],
        ['floor', r.floor.latency],
        ...(r.cached
          ? ([
              ['Launchdex, read cache on', r.cached.throughput],
              ['Launchdex, read cache on', r.cached.latency],
            ] as const)
          : []),
      ] as const
    )
      .filter(([, run]) => run.errors > 0)
      .map(([name, run]) => `${r.label} (${name}, ${run.connections} connections): ${run.errors}`),
  );
  lines.push(
    errors.length === 0
      ? 'No errors or non-2xx answers in any run.'
      : `Errors or non-2xx answers: ${errors.join('; ')}.`,
  );
  return lines.join('\n');
}

/** A markdown table laid out as the formatter (Biome) lays it out: first column left, the rest right. */
export function markdownTable(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, 3, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[column] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (column === 0 ? '-'.repeat(width) : `${'-'.repeat(width - 1)}:`)).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)];
}

/** Puts `table` into docs/benchmarks.md between the bench:api markers. */
export function writeReport(file: string, table: string): void {
  const text = readFileSync(file, 'utf8');
  const start = '<!-- bench:api:start -->';
  const end = '<!-- bench:api:end -->';
  const block = `${start}\n${table}\n${end}`;
  writeFileSync(
    file,
    text.includes(start)
      ? text.replace(new RegExp(`${start}[\\s\\S]*${end}`), () => block)
      : `${text.trimEnd()}\n\n## Read API under load\n\n${block}\n`,
  );
}

/** Where a new subsection goes: before this heading, else at the end of the file. */
const sectionsBefore = '### What building the floor found';

/**
 * Puts `block` into docs/benchmarks.md between the `bench:<name>` markers; when they are not
 * there yet, adds them under `heading`, a new subsection after the read API's (before "What
 * building the floor found").
 */
export function writeMarkedSection(file: string, name: string, heading: string, block: string): void {
  const text = readFileSync(file, 'utf8');
  const start = `<!-- bench:${name}:start -->`;
  const end = `<!-- bench:${name}:end -->`;
  const marked = `${start}\n${block}\n${end}`;
  if (text.includes(start) && text.includes(end)) {
    writeFileSync(
      file,
      text.replace(new RegExp(`${start}[\\s\\S]*${end}`), () => marked),
    );
    return;
  }
  const section = `### ${heading}\n\n${marked}\n`;
  const at = text.indexOf(`\n${sectionsBefore}\n`);
  writeFileSync(
    file,
    at < 0 ? `${text.trimEnd()}\n\n${section}` : `${text.slice(0, at + 1)}${section}\n${text.slice(at + 1)}`,
  );
}
