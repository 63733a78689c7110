import { eq, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { drizzle } from 'drizzle-orm/postgres-js';
import { describe, expect, it } from 'vitest';
import { builderRowLimit, rowLimit } from './row-limit';
import { tokens } from './schema';

const dialect = new PgDialect();

describe('row limits written into the statement', () => {
  it('renders a builder limit as text, leaving the other values bound', () => {
    const db = drizzle.mock();
    const query = db
      .select({ address: tokens.address })
      .from(tokens)
      .where(eq(tokens.symbol, 'PEPE'))
      .limit(builderRowLimit(21))
      .toSQL();
    expect(query.sql).toMatch(/ limit 21$/);
    expect(query.params).toEqual(['PEPE']);
  });

  it('renders a template limit as text', () => {
    const query = dialect.sqlToQuery(sql`select 1 from tokens where symbol = ${'PEPE'} limit ${rowLimit(5)}`);
    expect(query.sql).toBe('select 1 from tokens where symbol = $1 limit 5');
    expect(query.params).toEqual(['PEPE']);
  });

  it('refuses anything but a non-negative integer', () => {
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 60])
      expect(() => rowLimit(bad)).toThrow(RangeError);
  });
});
