import { Column, fillPlaceholders, getTableName, is, SQL, Subquery } from 'drizzle-orm';
import type { Database } from './client';

/**
 * Statements built once per database handle and key instead of once per request: drizzle spends
 * more CPU assembling a wide select than postgres.js spends sending it (docs/benchmarks.md). A
 * statement uses `sql.placeholder` for the request's values and `.prepare()` keeps its text; the
 * key names everything else its text depends on (order, filters, limit), from a bounded set.
 * @example const page = pages(ctx.db, `after|${limit}`, (db) => db.select()…limit(builderRowLimit(limit)).prepare('page'))
 */
export function createStatementCache<Statement>(): (
  db: Database,
  key: string,
  build: (db: Database) => Statement,
) => Statement {
  const byDatabase = new WeakMap<Database, Map<string, Statement>>();
  return (db, key, build) => {
    let statements = byDatabase.get(db);
    if (!statements) {
      statements = new Map();
      byDatabase.set(db, statements);
    }
    let statement = statements.get(key);
    if (statement === undefined) {
      statement = build(db);
      statements.set(key, statement);
    }
    return statement;
  };
}

/** A drizzle column, SQL or alias: whatever maps one selected value from its driver form. */
type Decoder = { mapFromDriverValue(value: unknown): unknown };

/** What a postgres.js prepared select of drizzle holds (drizzle-orm/postgres-js/session.js). */
interface PostgresJsPrepared {
  queryString: string;
  params: unknown[];
  prepare?: boolean;
  fields?: { path: string[]; field: unknown }[];
  joinsNotNullableMap?: Record<string, boolean>;
  customResultMapper?: unknown;
  client: { unsafe(text: string, params: unknown[], options: object): { values(): Promise<unknown[][]> } };
}

interface RowPlan {
  decoders: Decoder[];
  paths: string[][];
  /** Per column: the nested object a column of a joined table fills, and that table's name. */
  nullable: ({ objectName: string; tableName: string } | undefined)[];
}

const plans = new WeakMap<object, RowPlan | null>();

/**
 * Runs a prepared select as drizzle would and maps its rows the same way, with each column's
 * decoder and path resolved once per statement instead of once per row: drizzle's own mapper
 * re-derives them for every value (a class check per column per row), the largest cost of a
 * list page after the database (docs/benchmarks.md). Falls back to drizzle's `execute` wherever
 * the statement is not a postgres.js select over fields (PGlite, raw statements).
 */
export async function executePrepared<Row>(
  statement: { execute(values?: Record<string, unknown>): Promise<Row[]> },
  values: Record<string, unknown>,
): Promise<Row[]> {
  let plan = plans.get(statement);
  if (plan === undefined) {
    plan = rowPlan(statement as unknown as PostgresJsPrepared);
    plans.set(statement, plan);
  }
  if (plan === null) return statement.execute(values);
  const prepared = statement as unknown as PostgresJsPrepared;
  const rows = await prepared.client
    .unsafe(prepared.queryString, fillPlaceholders(prepared.params, values), { prepare: prepared.prepare })
    .values();
  return rows.map((row) => mapRow(plan, row, prepared.joinsNotNullableMap) as Row);
}

function rowPlan(prepared: PostgresJsPrepared): RowPlan | null {
  if (!prepared.fields || prepared.customResultMapper || typeof prepared.client?.unsafe !== 'function')
    return null;
  const plan: RowPlan = { decoders: [], paths: [], nullable: [] };
  for (const { path, field } of prepared.fields) {
    // The decoder of an SQL field is internal to drizzle (`decoder`), as in its own mapper.
    const decoderOf = (value: SQL) => (value as unknown as { decoder: Decoder }).decoder;
    let decoder: Decoder;
    if (is(field, Column)) decoder = field;
    else if (is(field, SQL)) decoder = decoderOf(field);
    else if (is(field, Subquery)) decoder = decoderOf((field as unknown as { _: { sql: SQL } })._.sql);
    else decoder = decoderOf((field as SQL.Aliased).sql);
    plan.decoders.push(decoder);
    plan.paths.push(path);
    plan.nullable.push(
      is(field, Column) && path.length === 2
        ? { objectName: path[0] as string, tableName: getTableName(field.table) }
        : undefined,
    );
  }
  return plan;
}

/** drizzle's mapResultRow (drizzle-orm/utils.js) over a precomputed plan: the same object. */
function mapRow(plan: RowPlan, row: unknown[], joinsNotNullableMap: Record<string, boolean> | undefined) {
  const result: Record<string, unknown> = {};
  const nullify: Record<string, string | false> = {};
  let anyNullify = false;
  for (let index = 0; index < plan.paths.length; index++) {
    const path = plan.paths[index] as string[];
    let node = result;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const chunk = path[depth] as string;
      let child = node[chunk] as Record<string, unknown> | undefined;
      if (child === undefined) {
        child = {};
        node[chunk] = child;
      }
      node = child;
    }
    const raw = row[index];
    const value = raw === null ? null : (plan.decoders[index] as Decoder).mapFromDriverValue(raw);
    node[path[path.length - 1] as string] = value;
    const joined = plan.nullable[index];
    if (joinsNotNullableMap && joined) {
      anyNullify = true;
      const seen = nullify[joined.objectName];
      if (seen === undefined) nullify[joined.objectName] = value === null ? joined.tableName : false;
      else if (typeof seen === 'string' && seen !== joined.tableName) nullify[joined.objectName] = false;
    }
  }
  if (joinsNotNullableMap && anyNullify) {
    for (const [objectName, tableName] of Object.entries(nullify))
      if (typeof tableName === 'string' && !joinsNotNullableMap[tableName]) result[objectName] = null;
  }
  return result;
}
