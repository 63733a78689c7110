import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { addressOut, amount } from '../../../shared/api/common';
import { jsonSql } from './json-sql';

const schema = z.object({
  address: addressOut,
  name: z.string(),
  total: amount,
  count: z.number().int(),
  note: z.string().nullable(),
  extra: z.object({ flag: z.boolean() }).optional(),
});
const text = (columns: Parameters<typeof jsonSql<typeof schema>>[1]) =>
  new PgDialect().sqlToQuery(jsonSql(schema, columns)).sql;

describe('jsonSql', () => {
  const columns = {
    address: 't.address',
    name: 't.name',
    total: 't.total',
    count: 't.count',
    note: 't.note',
    extra: { when: 't.flag is not null', flag: 't.flag' },
  };

  it('writes keys in the schema order: hex quoted as it is, other text through to_json, nulls as null', () => {
    const written = text(columns);
    expect(written.indexOf('"address"')).toBeLessThan(written.indexOf('"name"'));
    expect(written).toContain(`'"' || (t.address) || '"'`);
    expect(written).toContain('to_json((t.name)::text)::text');
    expect(written).toContain(`coalesce(to_json((t.note)::text)::text, 'null')`);
    expect(written).toContain(`case when t.flag is not null then ',"extra":'`);
  });

  it('refuses a key the schema lacks, a key without a column and an optional object without a condition', () => {
    expect(() => text({ ...columns, other: 'x' } as never)).toThrow('other is not in the schema');
    const { count: _, ...missing } = columns;
    expect(() => text(missing as never)).toThrow('no column for count');
    expect(() => text({ ...columns, extra: { flag: 't.flag' } })).toThrow('extra needs a condition');
  });
});
