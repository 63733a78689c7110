import { type SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';
import { type Column, defOf, expression, isHexString, type JsonColumns, type SchemaDef } from './json-sql';

/**
 * One CSV record (RFC 4180, ended by CRLF) per row, written by PostgreSQL from the same zod schema
 * and columns as the row's JSON (json-sql.ts), so the two renderings of an item cannot disagree:
 * a field per key of the schema, in its order, each the text of the JSON value. Amounts, integers,
 * booleans, enums and hex as they are (nothing in them needs quoting); any other text, and an
 * array (as its JSON text: `labels` is `"[""creator"",""sniper""]"`), quoted when it holds a
 * quote, a comma, CR or LF, or is empty, with its quotes doubled; null as an empty field (the
 * convention of PostgreSQL's own COPY … CSV: an empty string is `""`, null is nothing).
 * Only flat items: a nested object has no column of its own.
 * @example csvSql(trade, { block_timestamp: 'block_timestamp', ... })
 */
export function csvSql<Schema extends z.ZodObject>(schema: Schema, columns: JsonColumns<Schema>): SQL {
  const shape = defOf(schema).shape;
  if (!shape) throw new Error('csvSql: the item is not an object schema');
  const given = columns as Record<string, unknown>;
  for (const key of Object.keys(given))
    if (!(key in shape)) throw new Error(`csvSql: ${key} is not in the schema`);
  const fields = Object.entries(shape).map(([key, field]) => {
    const column = given[key];
    if (column === undefined) throw new Error(`csvSql: no column for ${key}`);
    if (typeof column !== 'string' && !isSql(column))
      throw new Error(`csvSql: ${key} is an object; CSV items are flat`);
    return fieldText(field._zod.def, column, key);
  });
  // concat, not ||: a null field is an empty one rather than a null record (which string_agg would drop).
  return sql`concat(${sql.join(
    fields.flatMap((field, at) => (at === 0 ? [field] : [sql.raw(`','`), field])),
    sql`, `,
  )}, ${sql.raw(`E'\\r\\n'`)})`;
}

/** The header record: the schema's keys (snake_case names: nothing to quote), ended by CRLF. */
export function csvHeader(schema: z.ZodObject): string {
  const keys = Object.keys(schema.shape);
  for (const key of keys)
    if (!/^[a-z_][a-z0-9_]*$/.test(key)) throw new Error(`csvHeader: ${key} would need quoting`);
  return `${keys.join(',')}\r\n`;
}

const isSql = (value: unknown): value is SQL =>
  typeof value === 'object' && value !== null && 'queryChunks' in value;

function fieldText(def: SchemaDef, column: Column, key: string): SQL {
  if (def.type === 'nullable' || def.type === 'optional')
    return fieldText(def.innerType?._zod.def as SchemaDef, column, key);
  const value = expression(column);
  switch (def.type) {
    case 'bigint':
    case 'number':
    case 'boolean':
    case 'enum':
      return sql`(${value})::text`;
    case 'string':
      return isHexString(def) ? sql`(${value})::text` : quoted(value);
    case 'array':
      return quoted(value);
    default:
      throw new Error(`csvSql: ${key} has a ${def.type} schema, which it does not write`);
  }
}

/** Text quoted as RFC 4180 asks, when it must be (its expression evaluated once). */
function quoted(value: SQL): SQL {
  return sql`(select case when v = '' or v ~ '[",\\r\\n]' then '"' || replace(v, '"', '""') || '"' else v end
            from (select (${value})::text as v) f)`;
}
