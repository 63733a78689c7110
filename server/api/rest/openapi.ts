import { z } from 'zod';
import { openApiHints } from '../../../shared/api/openapi-hints';
import { MIN_BLOCK_PARAM } from '../../../shared/api/read-position';
import { type ErrorCode, errorStatus } from '../../errors';
import { routes as serverPaths } from '../../routes';
import { streamOperation } from '../../stream/openapi';
import { pathParamNames, type RestRoute } from './define';
import type { ListExport } from './export';

type JsonSchema = Record<string, unknown>;

/** JSON Schema of a zod schema with the OpenAPI hints substituted (the document and the fuzzer read it). */
export function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    override: (ctx) => {
      const hint = openApiHints.get(ctx.zodSchema);
      if (!hint) return;
      for (const key of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as JsonSchema)[key];
      Object.assign(ctx.jsonSchema, hint);
    },
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

const errorBodySchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(errorStatus) },
        message: { type: 'string' },
        details: {
          type: 'array',
          items: {
            type: 'object',
            required: ['message'],
            properties: { field: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
};

/**
 * Headers the HTTP front sends (server/http/rate-limit.ts, rateLimitHeaders): the IETF RateLimit
 * fields on every answer while a limit is on, Retry-After on every 429 and on a 503 that names
 * when to come back.
 */
const headerComponents = {
  'Retry-After': {
    description: 'Seconds to wait before sending the request again.',
    schema: { type: 'integer', minimum: 1 },
  },
  RateLimit: {
    description:
      'IETF RateLimit field (draft-ietf-httpapi-ratelimit-headers), one item per limit that counted the request: `"<bucket>";r=<requests that may be sent now>;t=<seconds until the bucket is full>`. Absent when the operator turned the limits off.',
    schema: { type: 'string' },
    example: '"reads";r=119;t=1',
  },
  'RateLimit-Policy': {
    description:
      'IETF RateLimit-Policy field, one item per limit: `"<bucket>";q=<requests at once>;w=<seconds the bucket takes to refill>`. Buckets: `reads` (every request), `uploads` and `finalize` (their POST routes). Absent when the operator turned the limits off.',
    schema: { type: 'string' },
    example: '"reads";q=120;w=6',
  },
  'X-Indexed-Through-Block': {
    description:
      "The block the answer's data is indexed through (or a later one). Send the highest seen back as `min_block` or `X-Min-Indexed-Block`: no later answer is then older, whichever instance or read replica serves it.",
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Export-Rows': {
    description:
      "CSV only: the records that follow the header, counted in the snapshot the export reads. A body with fewer was cut by the export deadline (it also ends without HTTP's last chunk: an incomplete transfer).",
    schema: { type: 'integer', minimum: 0 },
  },
  'X-Export-Truncated': {
    description:
      'CSV only, when the list holds more rows than the export limit: `row_limit`. `Link` then names the export of the rows after the last one written.',
    schema: { type: 'string', enum: ['row_limit'] },
  },
  Link: {
    description: 'CSV only, with `X-Export-Truncated`: `<…&cursor=…>; rel="next"`, the next export.',
    schema: { type: 'string' },
  },
  'Content-Disposition': {
    description: 'CSV only: `attachment; filename="<list>-<token>-<block>.csv"`.',
    schema: { type: 'string' },
  },
} as const;

/** The client's high-water block, on every read (docs/api.md, "Read replicas and monotonic reads"). */
const minBlockParameters = [
  {
    name: MIN_BLOCK_PARAM,
    in: 'query',
    required: false,
    description:
      'The highest X-Indexed-Through-Block this client has seen: the answer is from a database indexed at least this far.',
    schema: { type: 'integer', minimum: 0 },
  },
  {
    name: 'X-Min-Indexed-Block',
    in: 'header',
    required: false,
    description: 'Same as `min_block` (the higher of the two counts when both are sent).',
    schema: { type: 'integer', minimum: 0 },
  },
];

const ref = (name: keyof typeof headerComponents) => ({ $ref: `#/components/headers/${name}` });
const rateLimitFields = { RateLimit: ref('RateLimit'), 'RateLimit-Policy': ref('RateLimit-Policy') };

/** What an exporting route's 200 adds: the CSV body (docs/api.md, "CSV exports") and its headers. */
function csvContent(csv: ListExport) {
  return {
    'text/csv': {
      schema: {
        type: 'string',
        description: `RFC 4180, CRLF line ends: the header \`${csv.header.trimEnd()}\`, then one record per item of the whole list (not one page; \`limit\` does not apply, \`cursor\` starts after that row), in the JSON pages' order, from one snapshot. A field is the JSON value's text (null: empty; an array: its JSON, quoted).`,
      },
    },
  };
}
const csvHeaders = {
  'X-Export-Rows': ref('X-Export-Rows'),
  'X-Export-Truncated': ref('X-Export-Truncated'),
  Link: ref('Link'),
  'Content-Disposition': ref('Content-Disposition'),
};

/** Headers of an answer by status: every request is counted by the front's gate. */
function answerHeaders(status: number): Record<string, unknown> {
  if (status === 429)
    return { 'Retry-After': { ...headerComponents['Retry-After'], required: true }, ...rateLimitFields };
  if (status === 503) return { 'Retry-After': ref('Retry-After'), ...rateLimitFields };
  return rateLimitFields;
}

/** An error answer: the envelope, the codes it may carry and the headers of its status. */
function errorResponse(status: number, codes: readonly ErrorCode[]) {
  return {
    description: `Error: ${codes.map((c) => `\`${c}\``).join(', ')}${status === 429 ? ' (wait Retry-After seconds; see RateLimit)' : ''}`,
    headers: answerHeaders(status),
    content: {
      'application/json': {
        schema: { $ref: '#/components/schemas/Error' },
        examples: Object.fromEntries(
          codes.map((code) => [code, { value: { error: { code, message: exampleMessage(code) } } }]),
        ),
      },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the declared routes, derived from the same zod schemas the
 * procedures validate with. Every operation is public (`security: []`: finalize's proof is a
 * signature in its body, not an HTTP credential) and every one can answer 429: the front counts
 * every request against its client's read budget, and writes against their own bucket too.
 */
export function buildOpenApiDocument(
  routes: readonly RestRoute[],
  info: { version: string; serverUrl?: string },
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const pathNames = pathParamNames(route.path);
    const inputJson = toSchema(route.input, 'input');
    const properties = (inputJson.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((inputJson.required ?? []) as string[]);
    const parameters = Object.entries(properties).map(([name, schema]) => {
      const inPath = pathNames.includes(name);
      const { description, ...rest } = schema;
      return {
        name,
        in: inPath ? 'path' : 'query',
        required: inPath || (required.has(name) && !('default' in schema)),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      };
    });
    // Every request passes the gate (429 past its client's budget), every read runs under the
    // statement timeout, and every request may find its database unreachable (503): clients
    // generated from this document must know to back off.
    const gate: ErrorCode[] =
      route.method === 'GET'
        ? ['invalid_parameter', 'rate_limited', 'unavailable']
        : ['rate_limited', 'unavailable'];
    const errorCodes: ErrorCode[] = [...new Set<ErrorCode>([...route.errors, ...gate, 'internal'])];
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of errorCodes)
      byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
    const success = route.successStatus ?? 200;
    const responses: Record<string, unknown> = {
      [String(success)]: {
        description: success === 201 ? 'Created' : 'OK',
        headers:
          route.method === 'GET'
            ? {
                ...answerHeaders(success),
                'X-Indexed-Through-Block': ref('X-Indexed-Through-Block'),
                ...(route.csv ? csvHeaders : {}),
              }
            : answerHeaders(success),
        content: {
          'application/json': { schema: toSchema(route.output, 'output') },
          ...(route.csv ? csvContent(route.csv) : {}),
        },
      },
    };
    for (const [status, codes] of [...byStatus.entries()].sort(([a], [b]) => a - b))
      responses[String(status)] = errorResponse(status, codes);
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      security: [],
      parameters: route.method === 'GET' ? [...parameters, ...minBlockParameters] : parameters,
      ...(route.requestBody
        ? {
            requestBody: {
              required: true,
              content: { [route.requestBody.contentType]: { schema: route.requestBody.schema } },
            },
          }
        : {}),
      responses,
    };
  }
  paths[serverPaths.stream] = {
    get: {
      ...streamOperation,
      security: [],
      // A stream is a read (the reads bucket) and holds one of its client's stream slots.
      responses: {
        ...streamOperation.responses,
        '429': errorResponse(429, ['rate_limited']),
        '503': { ...streamOperation.responses['503'], headers: answerHeaders(503) },
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Launchdex API',
      version: info.version,
      description:
        'Read API over an indexer of token launches (bonding curves graduating to Uniswap V3). Amounts are integers as decimal text; addresses and hashes are lowercase hex. Token metadata is supplied by creators and unverified; trending order is not an endorsement.',
    },
    // Paths are absolute (`/api/v1/...`): without a configured base, the server is the origin
    // that serves this document (a relative server URL, OpenAPI 3.1 section 4.8.5).
    servers: [
      info.serverUrl
        ? { url: info.serverUrl, description: 'This deployment' }
        : { url: '/', description: 'The origin serving this document' },
    ],
    paths,
    components: { schemas: { Error: errorBodySchema }, headers: headerComponents },
  };
}

function exampleMessage(code: ErrorCode): string {
  const messages: Partial<Record<ErrorCode, string>> = {
    invalid_parameter: 'limit must be an integer from 1 to 100',
    search_view_conflict: 'search and view cannot be combined',
    invalid_cursor: 'cursor is not valid for this list; use next_cursor unchanged',
    invalid_address: 'must be a 0x-prefixed 20-byte hex address',
    not_found: 'no launched token at 0x…',
    storage_budget_exceeded:
      "this client's unbound drafts hold 49000000 bytes and this draft needs 4900000 more; at most 50000000 bytes may wait unbound at once. Finalize a launched draft, or retry after 2026-05-02T10:00:00.000Z when the oldest expires",
    internal: 'Internal error',
  };
  return messages[code] ?? code;
}
