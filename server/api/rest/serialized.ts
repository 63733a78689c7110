import type { z } from 'zod';
import { fromWire } from '../../../shared/api/wire';

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
 * The answer as its schema types it (amounts as bigints) for tRPC: a text PostgreSQL wrote is read
 * back by the schema it was written from, so both transports serve one rendering.
 */
export function structured<Schema extends z.ZodType>(
  schema: Schema,
  answer: z.output<Schema> | SerializedAnswer,
): z.output<Schema> {
  return isSerializedAnswer(answer) ? fromWire(schema, JSON.parse(answer.text)) : answer;
}
