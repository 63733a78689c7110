import { SQL, sql } from 'drizzle-orm';
import type { z } from 'zod';

/**
 * An answer's JSON written by PostgreSQL, generated from its zod schema in `shared/api`: the one
 * definition of its shape. `columns` names, for each key of the schema, the SQL expression of its
 * value (a nested object for a nested schema, `when` for one that is null or absent unless a
 * condition holds). Keys come out in the schema's order, amounts (bigint) as decimal text,
 * integers as digits, hex strings and enums quoted, any other text through `to_json` (which
 * escapes as JSON.stringify does): byte for byte what JSON.stringify writes of the structured
 * answer, so tRPC reads the same text (shared/api/wire.ts) and no answer is written twice.
 * A key of the schema missing from `columns`, or one more, throws when the statement is built.
 * @example jsonSql(pricing, { token_address: 't.address', current_price: 't.current_price', ... })
 */
export function jsonSql<Schema extends z.ZodObject>(schema: Schema, columns: JsonColumns<Schema>): SQL {
  return objectText(schema, columns as unknown as ColumnTree, '');
}

/**
 * An expression (SQL text, or SQL with parameters), or the columns of a nested object. An array's
 * expression is its JSON text already (its items written by a jsonSql of their own, aggregated).
 */
export type JsonColumns<Schema extends z.ZodObject> = {
  [Key in keyof Schema['shape']]: Unwrapped<Schema['shape'][Key]> extends z.ZodObject
    ? ObjectColumns<Unwrapped<Schema['shape'][Key]>>
    : Column;
};

export type Column = string | SQL;

/** A nested object's columns; `when`: the condition under which it is there (else null or absent). */
export type ObjectColumns<Schema extends z.ZodObject> = JsonColumns<Schema> & { when?: string };

type Unwrapped<T> = T extends z.ZodNullable<infer Inner> | z.ZodOptional<infer Inner> ? Unwrapped<Inner> : T;

interface ColumnTree {
  [key: string]: Column | ColumnTree;
}

/** What the writer needs of a zod schema (zod 4's definition objects). */
export interface SchemaDef {
  type: string;
  shape?: Record<string, { _zod: { def: SchemaDef } }>;
  innerType?: { _zod: { def: SchemaDef } };
  checks?: { _zod: { def: { check: string; pattern?: RegExp } } }[];
}

export const defOf = (schema: unknown) => (schema as { _zod: { def: SchemaDef } })._zod.def;

/** Hex of a fixed length (addresses, hashes): nothing in it needs escaping. */
const HEX_PATTERN = /^\^0x\[0-9a-f\]\{\d+\}\$$/;

/** Whether a string schema only admits fixed-length hex (quoted as it is, never escaped). */
export const isHexString = (def: SchemaDef) =>
  def.checks?.some((check) => HEX_PATTERN.test(check._zod.def.pattern?.source ?? '')) ?? false;

const isColumn = (value: Column | ColumnTree): value is Column =>
  typeof value === 'string' || value instanceof SQL;
export const expression = (column: Column) => (typeof column === 'string' ? sql.raw(column) : column);

function objectText(schema: unknown, columns: ColumnTree, at: string): SQL {
  const shape = defOf(schema).shape;
  if (!shape) throw new Error(`jsonSql: ${at || 'the answer'} is not an object schema`);
  for (const key of Object.keys(columns))
    if (key !== 'when' && !(key in shape)) throw new Error(`jsonSql: ${at}${key} is not in the schema`);
  const parts: SQL[] = [];
  let first = true;
  for (const [key, field] of Object.entries(shape)) {
    const column = columns[key];
    if (column === undefined) throw new Error(`jsonSql: no column for ${at}${key}`);
    const def = field._zod.def;
    const prefix = sql.raw(`'${first ? '{' : ','}"${key}":'`);
    if (def.type === 'optional') {
      // An absent key: the whole `,"key":value` piece, or nothing.
      if (first) throw new Error(`jsonSql: ${at}${key} is optional and first`);
      const inner = def.innerType?._zod.def as SchemaDef;
      const when = isColumn(column) ? sql`${expression(column)} is not null` : whenOf(column, `${at}${key}`);
      parts.push(
        sql`case when ${when} then ${prefix} || ${valueText(inner, column, `${at}${key}.`)} else '' end`,
      );
      continue;
    }
    parts.push(sql`${prefix} || ${valueText(def, column, `${at}${key}.`)}`);
    first = false;
  }
  return sql`(${sql.join(parts, sql` || `)} || '}')`;
}

function whenOf(columns: ColumnTree, at: string): SQL {
  const when = columns.when;
  if (when === undefined || !isColumn(when)) throw new Error(`jsonSql: ${at} needs a condition (when)`);
  return expression(when);
}

function valueText(def: SchemaDef, column: Column | ColumnTree, at: string): SQL {
  if (def.type === 'nullable') {
    const inner = def.innerType?._zod.def as SchemaDef;
    if (!isColumn(column))
      return sql`case when ${whenOf(column, at)} then ${valueText(inner, column, at)} else 'null' end`;
    // Any concatenation with null is null: the value's text, or `null`.
    return sql`coalesce(${valueText(inner, column, at)}, 'null')`;
  }
  if (def.type === 'object') {
    if (isColumn(column)) throw new Error(`jsonSql: ${at} is an object: give its columns`);
    return objectText({ _zod: { def } }, column, at);
  }
  if (!isColumn(column)) throw new Error(`jsonSql: ${at} is not an object`);
  const value = expression(column);
  switch (def.type) {
    case 'array':
      return sql`(${value})`;
    case 'bigint':
    case 'enum':
      return sql`'"' || (${value}) || '"'`;
    case 'number':
    case 'boolean':
      return sql`(${value})::text`;
    case 'string': {
      return isHexString(def) ? sql`'"' || (${value}) || '"'` : sql`to_json((${value})::text)::text`;
    }
    default:
      throw new Error(`jsonSql: ${at} has a ${def.type} schema, which it does not write`);
  }
}

/**
 * A keyset page's items as JSON text, aggregated by PostgreSQL: `numbered` yields at most `limit`
 * + 1 rows as `x`, each with its place `x.n` in page order; the first `limit` are written by `item`
 * (a jsonSql) and joined with commas (`items`), `n` counts the rows (`limit` + 1: a next page
 * follows) and each of `keys` is the last item's part of the cursor, as `last_<name>`.
 */
export function jsonPageSql(item: SQL, numbered: SQL, limit: number, keys: Record<string, string>): SQL {
  const last = Object.entries(keys).map(([name, column]) =>
    sql.raw(`max(${column}) filter (where x.n = ${limit}) as last_${name}`),
  );
  return sql`(select string_agg(${item}, ',' order by x.n) filter (where x.n <= ${sql.raw(String(limit))}) as items,
                     count(*) as n, ${sql.join(last, sql`, `)}
                from ${numbered} x)`;
}

/** A page of {@link jsonPageSql} as `"items":[…],"next_cursor":…`: `cursor()` after its last item when one more came. */
export function pageJson(
  page: { items: string | null; n: string | number },
  limit: number,
  key: readonly (string | number | null)[],
  cursor: () => string,
): string {
  const next = Number(page.n) > limit && key.every((part) => part !== null) ? `"${cursor()}"` : 'null';
  return `"items":[${page.items ?? ''}],"next_cursor":${next}`;
}
