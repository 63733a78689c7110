import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { addressOut, amount } from '../../../shared/api/common';
import { csvHeader, csvSql } from './csv-sql';

const schema = z.object({
  address: addressOut,
  name: z.string(),
  total: amount,
  count: z.number().int(),
  side: z.enum(['buy', 'sell']),
  note: z.string().nullable(),
  tags: z.array(z.string()),
});
const columns = {
  address: 't.address',
  name: 't.name',
  total: 't.total',
  count: 't.count',
  side: 't.side',
  note: 't.note',
  tags: 't.tags',
};
const text = (given: Record<string, unknown>, of: z.ZodObject = schema) =>
  new PgDialect().sqlToQuery(csvSql(of, given as never)).sql;

describe('csvSql', () => {
  it('writes a field per key in the schema order, quoting only what may need it, the record ended by CRLF', () => {
    const written = text(columns);
    expect(written.startsWith('concat((t.address)::text')).toBe(true);
    expect(written.indexOf('t.address')).toBeLessThan(written.indexOf('t.name'));
    // Free text and arrays go through the quoting expression; hex, amounts, numbers and enums do not.
    expect(written.match(/replace\(v, '"', '""'\)/g)).toHaveLength(3);
    for (const plain of ['t.total', 't.count', 't.side']) expect(written).toContain(`(${plain})::text`);
    expect(written.endsWith(`E'\\r\\n')`)).toBe(true);
  });

  it('refuses a key the schema lacks, a key without a column, a nested object and a type it does not write', () => {
    expect(() => text({ ...columns, other: 'x' })).toThrow('other is not in the schema');
    const { count: _, ...missing } = columns;
    expect(() => text(missing)).toThrow('no column for count');
    const nested = z.object({ inner: z.object({ a: z.string() }) });
    expect(() => text({ inner: { a: 't.a' } }, nested)).toThrow('inner is an object; CSV items are flat');
    expect(() => text({ when: 't.when' }, z.object({ when: z.date() }))).toThrow('has a date schema');
  });

  it('names the header after the schema keys, and refuses a key that would need quoting', () => {
    expect(csvHeader(schema)).toBe('address,name,total,count,side,note,tags\r\n');
    expect(() => csvHeader(z.object({ 'a,b': z.string() }))).toThrow('a,b would need quoting');
    expect(() => csvHeader(z.object({ Name: z.string() }))).toThrow('Name would need quoting');
  });
});
