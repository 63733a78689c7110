import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { moduleWorker } from '../../server/module-worker';
import type { AttackerData } from './attacker-thread';
import { busiestToken, tokenAddress } from './fixtures';
import { type LoadResult, pooled, type RawRun, type Run, toRun } from './measure';
import { load, machineLine, markdownTable, type RunContext } from './report';
import { headOf } from './seed-sql';
import type { BenchServer } from './servers';
import type { VictimRun } from './victim-process';

/** The seed's name words (bench/lib/seed-sql.ts): symbols are 3 letters of one, 2 of another, digits. */
const words = [
  'moon',
  'frog',
  'cat',
  'doge',
  'whale',
  'pepe',
  'otter',
  'rocket',
  'panda',
  'goose',
  'banana',
  'wizard',
  'shiba',
  'based',
  'turbo',
  'giga',
];
const pick = (index: number) => words[index % words.length] as string;

/** What the attacker requests, in turn: each one an expensive read whose cache key is new. */
export const attackKinds = [
  'search by a 2–3 letter prefix (matches tens of thousands of tokens), varying limit',
  'search by a symbol prefix (five letters and a digit, a few hundred matches), varying limit',
  "the busiest token's detail, batched with one other token (a new key each time)",
  'holders of the busiest tokens (token 1 first), varying limit',
  'trades of the busiest tokens (token 1 first), varying limit',
  'chart of the busiest token, 1,000 one-minute candles up to a moving `to`',
] as const;

/**
 * The attacker's URLs: a new one per request (kind after kind, each kind's parameters counting
 * up), so that none is answered from the read cache.
 */
export function attackPaths(trades: number, from = 0): { next(): string } {
  const head = headOf(trades).timestamp;
  let n = from;
  return {
    next() {
      const kind = n % attackKinds.length;
      const j = Math.floor(n / attackKinds.length);
      n++;
      const limit = 1 + (j % 100);
      const round = Math.floor(j / 100);
      switch (kind) {
        case 0:
          return `/api/v1/tokens?search=${pick(round).slice(0, 2 + (round % 2))}&limit=${limit}`;
        case 1:
          return `/api/v1/tokens?search=${pick(round).slice(0, 3)}${pick(round * 7 + 3).slice(0, 2)}${round % 10}&limit=${limit}`;
        case 2:
          return `/api/v1/tokens/batch?addresses=${busiestToken},${tokenAddress(2 + (j % 999_000))}`;
        case 3:
          return `/api/v1/tokens/${tokenAddress(1 + (round % 50))}/holders?limit=${limit}`;
        case 4:
          return `/api/v1/tokens/${tokenAddress(1 + (round % 50))}/trades?limit=${limit}`;
        default:
          return `/api/v1/tokens/${busiestToken}/chart?interval=1m&limit=1000&to=${head - j * 60}`;
      }
    },
  };
}

/** What a `--hostile` run does, the same for every server it starts. */
export interface HostileSettings {
  /** Victim clients, one connection each, each with its own X-Forwarded-For. */
  victims: number;
  /** Requests per second of each victim (under the shipped per-client rate). */
  victimRate: number;
  attackerConnections: number;
  duration: number;
  warmup: number;
  /** Seconds the attack runs before the victims' attacked run starts. */
  ramp: number;
  /** Quiet and attacked runs, alternated; their answers are pooled into one p99 each. */
  rounds: number;
}

export interface HostileResult {
  workers: number;
  /** DATABASE_MS_PER_SECOND_PER_CLIENT of the run, when the run set it (`--database-ms`). */
  databaseMs?: string;
  /** Every quiet round's answers pooled. */
  quiet: Run;
  /** Every attacked round's answers pooled. */
  attacked: Run;
  /** Each round's own p99s, quiet then attacked (ms). */
  rounds: { quiet: number; attacked: number }[];
  /** The victims alone again once the attack has stopped: the noise of the quiet run, and recovery. */
  after: Run;
  /** The attacker's answers by status over every round, and its requests without an answer. */
  attacker: Pick<Run, 'statuses' | 'socketErrors'>;
}

const victimPath = '/api/v1/tokens/newest';
/** The victims are 198.51.100.0/24 and the attacker 203.0.113.66 (documentation ranges). */
export const victimAddress = (index: number) => `198.51.100.${1 + (index % 250)}`;
export const attackerAddress = '203.0.113.66';

/**
 * The victims' run, measured from a process of their own (bench/lib/victim-process.ts):
 * in this process their timers would share an event loop and a heap with the benchmark's own
 * work, and in the ad-hoc checks of docs/benchmarks.md that alone moved their p99.
 */
function measureVictims(server: BenchServer, run: Omit<VictimRun, 'baseUrl'>): Promise<RawRun> {
  const cpuBefore = server.cpuSeconds();
  const script = fileURLToPath(new URL('./victim-process.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', script, JSON.stringify({ ...run, baseUrl: server.baseUrl })],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) {
        reject(new Error(`the victims' process exited with code ${code}`));
        return;
      }
      resolve({
        raw: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
        seconds: run.seconds,
        cpuSeconds: server.cpuSeconds() - cpuBefore,
      });
    });
  });
}

/**
 * The victims' run alone, then again while the attacker keeps its connections busy; `trades` is
 * the dataset's (the attacker's charts end before its last candle).
 */
export async function runHostile(
  server: BenchServer,
  trades: number,
  options: HostileSettings,
): Promise<HostileResult> {
  const victims = {
    path: victimPath,
    victims: options.victims,
    rate: options.victimRate,
    seconds: options.duration,
  };
  if (options.warmup > 0) await measureVictims(server, { ...victims, seconds: options.warmup });
  const quiet: RawRun[] = [];
  const attacked: RawRun[] = [];
  const attacker: HostileResult['attacker'] = { statuses: new Map(), socketErrors: 0 };
  const rounds: HostileResult['rounds'] = [];
  const pool = (runs: RawRun[]) => pooled(server, victimPath, options.victims, runs);
  for (let round = 0; round < options.rounds; round++) {
    const alone = await measureVictims(server, victims);
    const attack = await startAttacker(server, {
      baseUrl: server.baseUrl,
      trades,
      // Far past any earlier round's requests: each round's keys are new to the read cache too.
      from: round * 1_000_000,
      connections: options.attackerConnections,
      maxSeconds: options.ramp + options.duration + 30,
      headers: { 'x-forwarded-for': attackerAddress },
    });
    await new Promise((resolve) => setTimeout(resolve, options.ramp * 1000));
    const under = await measureVictims(server, victims);
    const attackerRun = await attack.stop();
    for (const [status, n] of attackerRun.statuses)
      attacker.statuses.set(status, (attacker.statuses.get(status) ?? 0) + n);
    attacker.socketErrors += attackerRun.socketErrors;
    quiet.push(alone);
    attacked.push(under);
    rounds.push({ quiet: pool([alone]).p99, attacked: pool([under]).p99 });
  }
  const after = pool([await measureVictims(server, victims)]);
  return { workers: server.workers, quiet: pool(quiet), attacked: pool(attacked), rounds, after, attacker };
}

/**
 * The attacker's load, run in its own thread (bench/lib/attacker-thread.ts) so that parsing
 * its answers does not delay the victims' measurements; stop it to get its run.
 */
async function startAttacker(server: BenchServer, data: AttackerData): Promise<{ stop(): Promise<Run> }> {
  const cpuBefore = server.cpuSeconds();
  const thread = moduleWorker(new URL('./attacker-thread.ts', import.meta.url), { workerData: data });
  const messages: unknown[] = [];
  let wake: () => void = () => {};
  thread.on('message', (message: unknown) => {
    messages.push(message);
    wake();
  });
  const failed = new Promise<never>((_, reject) => {
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the attacker thread exited (code ${code})`)));
  });
  // Stopping the thread rejects this too; only a wait on it reports that.
  failed.catch(() => {});
  const nextMessage = async (): Promise<unknown> => {
    while (messages.length === 0)
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), failed]);
    return messages.shift();
  };
  if ((await nextMessage()) !== 'started') throw new Error('the attacker thread did not start');
  return {
    async stop() {
      thread.postMessage('stop');
      const result = (await nextMessage()) as LoadResult;
      await thread.terminate();
      return toRun(result, data.connections, server.cpuSeconds() - cpuBefore);
    },
  };
}

/** The attacker's statuses that have a column of their own. */
const attackerColumns = [200, 429, 400, 503];
const others = (run: HostileResult['attacker']) =>
  [...run.statuses].filter(([status]) => !attackerColumns.includes(status)).reduce((s, [, n]) => s + n, 0);

export interface HostileReportContext extends RunContext, HostileSettings {
  limits: Record<string, string>;
}

export function describeStatuses(run: Pick<Run, 'statuses'>): string {
  return [...run.statuses]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}: ${n.toLocaleString('en-US')}`)
    .join(', ');
}

/** The markdown of a `--hostile` run. */
export function renderHostile(c: HostileReportContext, results: HostileResult[]): string {
  const limits = Object.entries(c.limits)
    .map(([name, value]) => `\`${name}=${value}\``)
    .join(', ');
  const databaseMs = results.some((r) => r.databaseMs !== undefined);
  const lines = [
    machineLine(c.postgresVersion),
    `Dataset: ${c.tokens.toLocaleString('en-US')} tokens / ${c.trades.toLocaleString('en-US')} trades (\`npm run seed:scale\`).`,
    'Launchdex as shipped: `npm run serve`, indexer off, `LOG_LEVEL=warn`, read cache on, the default limits and',
    `per-client caps (${limits}; every other setting, e.g. \`DATABASE_SLOTS_PER_CLIENT\`, unset: its default),`,
    'and `TRUSTED_PROXY_HOPS=1` so that clients are told apart by `X-Forwarded-For`.',
    `Load average (1/5/15 min) ${load(c.loadBefore)} before, ${load(c.loadAfter)} after. Command: \`${c.command}\`.`,
    '',
    `Method: the victims are ${c.victims} clients (one connection and one \`X-Forwarded-For\` address each, 198.51.100.x, measured from a process of their own)` +
      ` reading \`GET /api/v1/tokens/newest\` at ${c.victimRate} requests per second each, under the shipped per-client` +
      ' rate (one client at 8 connections as fast as answers come would measure mostly its own 429s). After' +
      ` ${c.warmup} s of warm-up they are measured for ${c.duration} s alone ("quiet"), then the attacker, one more` +
      ` client (203.0.113.66, its load in a thread of its own so that parsing its answers does not delay the` +
      ` victims' timers), opens ${c.attackerConnections} connections and keeps a request in flight on each, each` +
      ` request a read whose cache key is new: ${attackKinds.join('; ')}. ${c.ramp > 0 ? `After ${c.ramp} s of attack the victims are` : 'From its first request (its burst included) the victims are'}` +
      ` measured for ${c.duration} s again ("attacked"), and the attack stops. ${c.rounds > 1 ? `That pair of runs is one round; ${c.rounds} rounds alternate quiet and attacked (each round's attacker goes on with new keys), and the quiet and attacked columns are the p50 and p99 of all their rounds' answers pooled (one run's p99 is only its ${Math.round(c.victims * c.victimRate * c.duration * 0.01)} slowest answers); each round's own p99s are listed too. ` : ''}` +
      'At the end the victims are measured alone once more ("after"). p50 and p99 are' +
      " autocannon's (corrected for coordinated omission, as the victims are paced). Every answer the attacker got is" +
      ' counted by status: 200 served, 429 refused by its rate limit or queue (the server holds a rate-limited' +
      ' request 500 ms before its 429), 400 refused as invalid (a search too broad), 503 given up (a read over its' +
      ' deadline).',
    '',
    ...markdownTable(
      [
        ...(databaseMs ? ['DATABASE_MS_PER_SECOND_PER_CLIENT'] : []),
        'workers',
        'quiet p50 ms',
        'quiet p99 ms',
        'attacked p50 ms',
        'attacked p99 ms',
        'p99 attacked ÷ quiet',
        'rounds: p99 quiet → attacked ms',
        'after p50 ms',
        'after p99 ms',
        'victim answers (quiet / attacked / after)',
        'victim non-2xx',
        ...attackerColumns.map((status) => `attacker ${status}`),
        'attacker other (or no answer)',
      ],
      results.map((r) => [
        ...(databaseMs ? [r.databaseMs ?? 'default'] : []),
        String(r.workers),
        String(r.quiet.p50),
        String(r.quiet.p99),
        String(r.attacked.p50),
        String(r.attacked.p99),
        r.quiet.p99 > 0 ? (r.attacked.p99 / r.quiet.p99).toFixed(2) : '—',
        r.rounds.map((round) => `${round.quiet} → ${round.attacked}`).join(', '),
        String(r.after.p50),
        String(r.after.p99),
        [r.quiet, r.attacked, r.after].map((run) => run.requests.toLocaleString('en-US')).join(' / '),
        String(r.quiet.errors + r.attacked.errors + r.after.errors),
        ...attackerColumns.map((status) => (r.attacker.statuses.get(status) ?? 0).toLocaleString('en-US')),
        (others(r.attacker) + r.attacker.socketErrors).toLocaleString('en-US'),
      ]),
    ),
  ];
  return lines.join('\n');
}
