import { sql } from 'drizzle-orm';

/**
 * Marks a read answer that is already JSON text: a route whose answer PostgreSQL can write itself
 * (digits and hex only, nothing to escape) skips parsing rows and serializing them again.
 */
const serializedBrand = Symbol('SerializedAnswer');

export interface SerializedAnswer {
  readonly [serializedBrand]: true;
  /** The answer's JSON, byte for byte what serializing its structured form would write. */
  readonly text: string;
  /** The answer's `indexed_through_block`, for its ETag (undefined: the body does not say it). */
  readonly indexedThroughBlock: number | undefined;
}

export function serializedAnswer(text: string, indexedThroughBlock?: number): SerializedAnswer {
  return { [serializedBrand]: true, text, indexedThroughBlock };
}

export function isSerializedAnswer(value: unknown): value is SerializedAnswer {
  return typeof value === 'object' && value !== null && serializedBrand in value;
}

/**
 * SQL pieces of answers PostgreSQL writes as JSON (the readers' serialized.ts files): a text
 * column as a JSON string (to_json escapes as JSON.stringify does) or `null`.
 */
export const jsonTextSql = (column: string) => sql.raw(`coalesce(to_json(${column})::text, 'null')`);

/** A nullable integer column as JSON digits or `null`. */
export const jsonIntegerSql = (column: string) => sql.raw(`coalesce((${column})::text, 'null')`);
