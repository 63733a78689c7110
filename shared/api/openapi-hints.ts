import { z } from 'zod';

/**
 * JSON Schema to publish for a zod schema whose runtime form (unions, transforms, bigint) does
 * not translate by itself. The OpenAPI generator substitutes these; validation is unchanged.
 */
export type JsonSchemaHint = Record<string, unknown>;
export const openApiHints = z.registry<JsonSchemaHint>();

export function withHint<T extends z.ZodType>(schema: T, hint: JsonSchemaHint): T {
  openApiHints.add(schema, hint);
  return schema;
}
