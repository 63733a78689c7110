import type { z } from 'zod';
import { toSchema } from '../../server/api/rest/openapi';
import { appRouter } from '../../server/api/root';

export type JsonSchema = Record<string, unknown>;

export interface OperationParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: JsonSchema;
}

/** One operation of the served OpenAPI document, as the fuzzer needs it. */
export interface RestOperation {
  method: 'GET' | 'POST';
  /** The path template: `/api/v1/tokens/{address}`. */
  path: string;
  operationId: string;
  parameters: OperationParameter[];
  requestBody?: { contentType: string; schema: JsonSchema };
  /** Error codes the document lists for this operation (examples or backquoted in descriptions). */
  documentedCodes: string[];
  /** HTTP statuses the document lists. */
  documentedStatuses: number[];
}

interface OpenApiOperation {
  operationId: string;
  parameters?: OperationParameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { description?: string; content?: Record<string, { examples?: object }> }>;
}

/**
 * The operations of an OpenAPI 3.1 document, so a route declared tomorrow is fuzzed without
 * touching the fuzzer.
 */
export function operationsOf(document: { paths: Record<string, Record<string, OpenApiOperation>> }) {
  const operations: RestOperation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const upper = method.toUpperCase();
      if (upper !== 'GET' && upper !== 'POST') continue;
      const codes = new Set<string>();
      for (const response of Object.values(operation.responses)) {
        for (const media of Object.values(response.content ?? {}))
          for (const code of Object.keys(media.examples ?? {})) codes.add(code);
        for (const match of (response.description ?? '').matchAll(/`([a-z_]+)`/g))
          codes.add(match[1] as string);
      }
      const [contentType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
      operations.push({
        method: upper,
        path,
        operationId: operation.operationId,
        parameters: operation.parameters ?? [],
        ...(contentType && media ? { requestBody: { contentType, schema: media.schema } } : {}),
        documentedCodes: [...codes],
        documentedStatuses: Object.keys(operation.responses).map(Number),
      });
    }
  }
  return operations;
}

/** A procedure of the tRPC router: its dotted path, its kind and its input as JSON Schema. */
export interface TrpcProcedure {
  path: string;
  type: 'query' | 'mutation' | 'subscription';
  input?: JsonSchema;
}

interface ProcedureDef {
  _def: { type: TrpcProcedure['type']; inputs: z.ZodType[] };
}

/** JSON Schema of a zod input, as the OpenAPI document writes it. */
const inputSchema = (schema: z.ZodType): JsonSchema => toSchema(schema, 'input');

/** Every procedure of the app's tRPC router (queries are served over HTTP; mutations are not). */
export function trpcProcedures(): TrpcProcedure[] {
  const procedures = appRouter._def.procedures as unknown as Record<string, ProcedureDef>;
  return Object.entries(procedures).map(([path, procedure]) => {
    const input = procedure._def.inputs[0];
    return { path, type: procedure._def.type, ...(input ? { input: inputSchema(input) } : {}) };
  });
}
