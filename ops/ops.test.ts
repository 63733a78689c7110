import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createMetrics, type IndexProbe } from '../server/observability/metrics';
import { promqlRefs } from './promql';

/*
 * The operators' dashboard (ops/grafana/launchdex.json) and alert rules (ops/prometheus/alerts.yml)
 * against promtool (Debian's `prometheus` package) and against what the server exports: a query of
 * a metric or label the server does not export shows an empty panel, and an alert on one never fires.
 */

const root = import.meta.dirname;
const rulesFile = path.join(root, 'prometheus', 'alerts.yml');
const rulesText = readFileSync(rulesFile, 'utf8');
const ruleTestsText = readFileSync(path.join(root, 'prometheus', 'alerts.test.yml'), 'utf8');
const dashboard = JSON.parse(readFileSync(path.join(root, 'grafana', 'launchdex.json'), 'utf8')) as Dashboard;
const operations = readFileSync(path.join(root, '..', 'docs', 'operations.md'), 'utf8');

interface Panel {
  id?: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: { expr?: string; datasource?: { uid?: string } }[];
  panels?: Panel[];
}
interface Dashboard {
  panels: Panel[];
  templating: { list: { name: string; type: string; query?: string | { query?: string } }[] };
}

/** Runs promtool; a missing promtool fails the test with how to install it. */
function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { encoding: 'utf8', cwd: root });
  if ((run.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT')
    throw new Error(
      'promtool is not installed: `apt-get install prometheus` (Debian) provides it (.ci/run installs it)',
    );
  if (run.error) throw run.error;
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  severity?: string;
  summary?: string;
  description?: string;
  runbook?: string;
}

/**
 * The alert rules of alerts.yml, read line by line: the file writes `expr` plain or as a `>-` block
 * and nothing else here is needed. promtool reads the YAML; the rule count is checked against its.
 */
function readAlertRules(text: string): AlertRule[] {
  const rules: AlertRule[] = [];
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    const alert = /^\s*- alert: (\S+)$/.exec(line);
    if (alert) {
      rules.push({ alert: alert[1] as string, expr: '' });
      continue;
    }
    const rule = rules.at(-1);
    const field = /^(\s*)(expr|for|severity|summary|description|runbook_url): ?(.*)$/.exec(line);
    if (!rule || !field) continue;
    const [, indent = '', name, value = ''] = field;
    let text = value.replace(/^"(.*)"$/, '$1');
    if (value === '>-') {
      const block: string[] = [];
      for (const next of lines.slice(i + 1)) {
        if (next.trim() && next.search(/\S/) <= indent.length) break;
        block.push(next.trim());
      }
      text = block.join(' ').trim();
    } else if (name === 'expr' && /^["'|>]/.test(value))
      throw new Error(`${rule.alert}: write expr plain or as >-`);
    if (name === 'runbook_url') rule.runbook = text;
    else if (
      name === 'expr' ||
      name === 'for' ||
      name === 'severity' ||
      name === 'summary' ||
      name === 'description'
    )
      rule[name] = text;
  }
  return rules;
}

/** Each `alertname` a case of alerts.test.yml evaluates, and whether it expects it to fire. */
function readRuleTests(text: string): { alertname: string; fires: boolean }[] {
  return [...text.matchAll(/^\s*alertname: (\S+)\n\s*exp_alerts:(.*)$/gm)].map((m) => ({
    alertname: m[1] as string,
    fires: m[2]?.trim() !== '[]',
  }));
}

/** Every PromQL query of the dashboard: the panels' targets and the variables' label_values(). */
function dashboardQueries(): { where: string; expr: string; label?: string }[] {
  const queries: { where: string; expr: string; label?: string }[] = [];
  const walk = (panels: Panel[]) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? [])
        if (target.expr) queries.push({ where: `panel "${panel.title}"`, expr: target.expr });
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating.list) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : (variable.query?.query ?? '');
    const values = /^label_values\((.+),\s*([a-zA-Z_][a-zA-Z0-9_]*)\)$/.exec(query);
    if (!values) throw new Error(`variable ${variable.name}: expected label_values(selector, label)`);
    queries.push({
      where: `variable $${variable.name}`,
      expr: values[1] as string,
      label: values[2] as string,
    });
  }
  return queries;
}

/**
 * The series names a scrape shows and the labels each carries, from the registry both processes
 * build (createMetrics): every probe given, as the web process gives them (the indexer's set is a
 * part of it), so every family is there. `Required` makes a new optional probe show up here.
 * Prometheus adds `job` and `instance` to every series, and `up` of its own.
 */
async function exportedSeries(): Promise<Map<string, Set<string>>> {
  const probe: Required<IndexProbe> = {
    indexedThroughBlock: async () => 100,
    chainHead: async () => 110,
    indexer: () => ({
      ...{ indexedThroughBlock: 100, head: 110, blocks: 10, events: 20, batches: 2, reorgs: 1 },
      ...{ fetchMs: 5, projectMs: 5, streamedParts: 0, balanceReads: 0, fundingBlocks: 0 },
    }),
    streamClients: () => 3,
    streamMaxClients: () => 1000,
    readCache: () => ({ hit: 3, miss: 2, joined: 1, evicted: 0, bytes: 4096, entries: 2 }),
    databaseReads: () => ({ primary: 5, 'db-2:5432/launchdex': 3 }),
    replicaLag: () => ({ 'db-2:5432/launchdex': 2 }),
    databaseTime: () => ({ reads: 5, heldSeconds: 0.01, queuedSeconds: 0.001, acquireTimeouts: 1 }),
    webhooks: async () => ({
      targets: { ok: 1, retrying: 1, failing: 1 },
      lagBlocks: { wh_0123456789abcdef: 3 },
    }),
  };
  const metrics = createMetrics(probe);
  metrics.httpDuration.observe('GET', '/api/v1/tokens/{address}', 200, 0.01);
  const series = new Map<string, Set<string>>();
  const labelsOf = (name: string) => {
    const found = series.get(name) ?? new Set(['job', 'instance']);
    series.set(name, found);
    return found;
  };
  labelsOf('up');
  for (const line of (await metrics.registry.metrics()).split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[2] === 'histogram') for (const suffix of ['_sum', '_count']) labelsOf(`${type[1]}${suffix}`);
    if (type?.[2] === 'histogram') labelsOf(`${type[1]}_bucket`).add('le');
    else if (type) labelsOf(type[1] as string);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? \S+$/.exec(line);
    if (!sample) continue;
    const labels = labelsOf(sample[1] as string);
    for (const pair of (sample[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*"/g))
      labels.add(pair[1] as string);
  }
  return series;
}

/** What `expr` reads that no exported series has: unknown metrics, and labels none of its series carry. */
function unexported(expr: string, series: Map<string, Set<string>>, label?: string): string[] {
  const refs = promqlRefs(expr);
  const problems: string[] = [];
  const carried = new Set<string>();
  for (const { metric, labels } of refs.selectors) {
    const known = series.get(metric);
    if (!known) {
      problems.push(`metric ${metric}`);
      continue;
    }
    for (const name of known) carried.add(name);
    for (const name of labels) if (!known.has(name)) problems.push(`label ${name} of ${metric}`);
  }
  for (const name of [...refs.grouping, ...(label ? [label] : [])])
    if (!carried.has(name)) problems.push(`label ${name} (no series of the expression has it)`);
  return problems;
}

/** GitHub's anchor of a Markdown heading. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');

const rules = readAlertRules(rulesText);

describe('ops: alert rules', () => {
  it('promtool check rules accepts alerts.yml, and finds the rules read here', () => {
    const { status, output } = promtool('check', 'rules', rulesFile);
    expect(output).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(status).toBe(0);
  });

  it('promtool test rules passes, with a case where each alert fires and one where it stays silent', () => {
    const { status, output } = promtool('test', 'rules', path.join(root, 'prometheus', 'alerts.test.yml'));
    expect(output).toContain('SUCCESS');
    expect(status).toBe(0);
    const cases = readRuleTests(ruleTestsText);
    for (const { alert } of rules) {
      expect(cases, `a case where ${alert} fires`).toContainEqual({ alertname: alert, fires: true });
      expect(cases, `a case where ${alert} stays silent`).toContainEqual({ alertname: alert, fires: false });
    }
    expect(new Set(cases.map((c) => c.alertname))).toEqual(new Set(rules.map((r) => r.alert)));
  });

  it('every alert waits a while, has a severity, says what users see, and links a section of docs/operations.md', () => {
    const anchors = new Set(
      [...operations.matchAll(/^#{1,6} (.+)$/gm)].map((m) => `docs/operations.md#${anchor(m[1] as string)}`),
    );
    expect(rules.length).toBeGreaterThanOrEqual(10);
    for (const rule of rules) {
      expect(rule.for, rule.alert).toMatch(/^[1-9][0-9]*m$/);
      expect(['warning', 'critical'], rule.alert).toContain(rule.severity);
      expect(rule.summary, rule.alert).toBeTruthy();
      expect(rule.description, rule.alert).toMatch(/[Uu]sers|integrations|receiver/);
      expect(anchors, `${rule.alert}'s runbook_url ${rule.runbook}`).toContain(rule.runbook);
    }
  });
});

describe('ops: the Grafana dashboard', () => {
  it('is importable anywhere: one Prometheus data source variable that every panel and query uses', () => {
    const variable = dashboard.templating.list.find((v) => v.type === 'datasource');
    expect(variable).toMatchObject({ name: 'datasource', query: 'prometheus' });
    const uid = `\${${variable?.name}}`;
    const panels: Panel[] = [];
    const walk = (list: Panel[]) => {
      for (const panel of list) {
        panels.push(panel);
        walk(panel.panels ?? []);
      }
    };
    walk(dashboard.panels);
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of panels.filter((p) => p.type !== 'row')) {
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid });
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource?.uid, panel.title).toBe(uid);
    }
  });

  it('every query is valid PromQL (promtool, with the variables given values)', () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'launchdex-dashboard-'));
    try {
      const file = path.join(directory, 'dashboard-rules.json');
      const concrete = (expr: string) =>
        expr
          .replace(/\$__(rate_)?interval|\$__range/g, '5m')
          .replace(/\$\{?[a-zA-Z_][a-zA-Z0-9_]*\}?/g, '.*');
      const recorded = dashboardQueries().map((q, i) => ({
        record: `dashboard:query_${i}`,
        expr: concrete(q.expr),
      }));
      // JSON is YAML: promtool reads it as a rule file.
      writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules: recorded }] }));
      const { status, output } = promtool('check', 'rules', file);
      expect(output).toContain(`SUCCESS: ${recorded.length} rules found`);
      expect(status).toBe(0);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('ops: every metric the dashboard and the alerts read is one the server exports', () => {
  it('every metric name and label resolves (histograms by their _bucket, _sum and _count)', async () => {
    const series = await exportedSeries();
    const problems = [
      ...rules.flatMap((rule) => unexported(rule.expr, series).map((p) => `alert ${rule.alert}: ${p}`)),
      ...dashboardQueries().flatMap((q) =>
        unexported(q.expr, series, q.label).map((p) => `${q.where}: ${p}`),
      ),
    ];
    expect(problems).toEqual([]);
    // What the panels show: the request histogram, webhook states and database time among them.
    const read = new Set(
      dashboardQueries().flatMap((q) => promqlRefs(q.expr).selectors.map((s) => s.metric)),
    );
    for (const metric of [
      'launchdex_http_request_duration_seconds_bucket',
      'launchdex_webhook_targets',
      'launchdex_db_read_seconds_total',
      'launchdex_replica_lag_blocks',
      'launchdex_stream_clients',
      'launchdex_read_cache_requests_total',
      'launchdex_process_resident_memory_bytes',
    ])
      expect(read).toContain(metric);
  });

  it('a metric or label the server does not export is reported', async () => {
    const series = await exportedSeries();
    expect(unexported('sum(rate(launchdex_made_up_total[5m]))', series)).toEqual([
      'metric launchdex_made_up_total',
    ]);
    expect(unexported('launchdex_http_request_duration_seconds{route="/api/v1/tokens"}', series)).toEqual([
      'metric launchdex_http_request_duration_seconds',
    ]);
    expect(
      unexported('max by (target) (launchdex_webhook_targets{state="failing",tier="x"})', series),
    ).toEqual([
      'label tier of launchdex_webhook_targets',
      'label target (no series of the expression has it)',
    ]);
  });

  it('reads the selectors and grouping labels of an expression, passing over functions, strings and variables', () => {
    expect(
      promqlRefs(
        'histogram_quantile(0.99, sum by (le, route) (rate(a_bucket{job=~"$job", route!~"/x{y}"}[$__rate_interval])))' +
          ' > 0.5 and on () b offset 5m unless ignoring(instance) c:recorded{x="1"} * 1e-3',
      ),
    ).toEqual({
      selectors: [
        { metric: 'a_bucket', labels: ['job', 'route'] },
        { metric: 'b', labels: [] },
        { metric: 'c:recorded', labels: ['x'] },
      ],
      grouping: ['le', 'route', 'instance'],
    });
    expect(() => promqlRefs('{__name__="a"}')).toThrow(/without a metric name/);
  });
});
