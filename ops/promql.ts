/**
 * What a PromQL expression reads, for checking dashboards and alert rules against the metrics the
 * server exports (ops/ops.test.ts). Not a parser: promtool checks the syntax; this finds the
 * series selectors (a metric name and the labels its matchers name) and the labels of grouping
 * clauses (`by`, `without`, `on`, `ignoring`, `group_left`, `group_right`). Grafana variables
 * (`$job`, `${job}`, `$__rate_interval`) are passed over. Throws on what it does not know
 * rather than guess.
 */

export interface PromqlRefs {
  selectors: { metric: string; labels: string[] }[];
  grouping: string[];
}

/** Names followed by `(` are functions; these are the other words that are not metric names. */
const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'atan2']);
const aggregators = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
]);
const groupings = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

const identifier = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const labelName = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*/y;
const matcher =
  /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)\s*,?/y;
const skipped = [
  /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/y, // strings
  /\[[^\]]*\]/y, // ranges and subqueries: [5m], [$__rate_interval], [1h:5m]
  /\$\{[^}]*\}|\$[a-zA-Z0-9_]+/y, // Grafana variables
  /[0-9.][0-9a-zA-Z_.]*/y, // numbers and durations (offset 5m)
  /#[^\n]*/y, // comments
];

function sticky(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** The selectors and grouping labels of `expr`. */
export function promqlRefs(expr: string): PromqlRefs {
  const refs: PromqlRefs = { selectors: [], grouping: [] };
  let at = 0;
  next: while (at < expr.length) {
    for (const pattern of skipped) {
      const found = sticky(pattern, expr, at);
      if (found) {
        at += found[0].length;
        continue next;
      }
    }
    if (expr[at] === '{') throw new Error(`a selector without a metric name in ${expr}`);
    const word = sticky(identifier, expr, at)?.[0];
    if (!word) {
      at++;
      continue;
    }
    at += word.length;
    const after = at + (expr.slice(at).length - expr.slice(at).trimStart().length);
    if (groupings.has(word)) {
      if (expr[after] !== '(') continue;
      at = after + 1;
      for (let label = sticky(labelName, expr, at); label; label = sticky(labelName, expr, at)) {
        refs.grouping.push(label[1] as string);
        at += label[0].length;
        if (expr[at] === ',') at++;
      }
      if (expr[at] !== ')') throw new Error(`cannot read the label list at ${at} of ${expr}`);
      at++;
      continue;
    }
    if (expr[after] === '(' || keywords.has(word) || aggregators.has(word)) continue;
    const labels: string[] = [];
    if (expr[after] === '{') {
      at = after + 1;
      for (let found = sticky(matcher, expr, at); found; found = sticky(matcher, expr, at)) {
        labels.push(found[1] as string);
        at += found[0].length;
      }
      if (expr[at] !== '}') throw new Error(`cannot read the matchers at ${at} of ${expr}`);
      at++;
    }
    refs.selectors.push({ metric: word, labels });
  }
  return refs;
}
