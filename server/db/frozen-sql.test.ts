import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { frozenSql } from './frozen-sql';
import { tokens } from './schema';

const render = (fragment: ReturnType<typeof sql>) => new PgDialect().sqlToQuery(fragment);

describe('frozen SQL fragments', () => {
  it('renders columns and constants once, to the text drizzle would have sent', () => {
    const fragment = sql`(select ${tokens.currentPrice} from indexer_checkpoint where id = ${"it's"} and n = ${7})`;
    const frozen = render(sql`select ${frozenSql(fragment)} where ${tokens.symbol} = ${'PEPE'}`);
    expect(frozen.sql).toBe(
      `select (select "tokens"."current_price" from indexer_checkpoint where id = 'it''s' and n = 7) where "tokens"."symbol" = $1`,
    );
    expect(frozen.params).toEqual(['PEPE']);
  });

  it('refuses values that are not plain constants', () => {
    expect(() => frozenSql(sql`select ${{ a: 1 }}`)).toThrow(TypeError);
    expect(() => frozenSql(sql`select ${Number.NaN}`)).toThrow(TypeError);
  });
});
