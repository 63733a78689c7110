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
