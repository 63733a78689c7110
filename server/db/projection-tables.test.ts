import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { offChainTables, projectionTables, rebuildScratchTables } from './projection-tables';
import * as schema from './schema';

describe('tables by what a rebuild does with them', () => {
  it('names every table of the schema exactly once', () => {
    const tables = Object.values(schema)
      .filter((value) => is(value, PgTable))
      .map((table) => getTableConfig(table as PgTable).name)
      .sort();
    const classified = [...projectionTables, ...rebuildScratchTables, ...offChainTables];
    expect(new Set(classified).size).toBe(classified.length);
    expect([...classified].sort()).toEqual(tables);
  });
});
