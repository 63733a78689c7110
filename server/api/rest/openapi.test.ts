import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi';
import { restRoutes } from './registry';

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument(restRoutes, { version: 'test' });

  it('is OpenAPI 3.1 and lists every declared route', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const route of restRoutes) {
      const operation = (document.paths[route.path] as Record<string, { operationId: string }> | undefined)?.[
        route.method.toLowerCase()
      ];
      expect(operation?.operationId, route.path).toBe(route.operationId);
    }
  });

  it('describes limit with its range and default and path addresses as required', () => {
    const list = (
      document.paths['/api/v1/tokens'] as Record<string, { parameters: { name: string; schema: unknown }[] }>
    ).get;
    expect(list?.parameters.find((p) => p.name === 'limit')?.schema).toEqual({
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: 20,
    });
    const detail = (
      document.paths['/api/v1/tokens/{address}'] as Record<
        string,
        { parameters: { name: string; in: string; required: boolean }[] }
      >
    ).get;
    expect(detail?.parameters).toContainEqual(
      expect.objectContaining({ name: 'address', in: 'path', required: true }),
    );
  });

  it('documents amounts as decimal text and every declared error status', () => {
    const text = JSON.stringify(document);
    expect(text).toContain('"pattern":"^[0-9]+$"');
    const responses = (
      document.paths['/api/v1/tokens/{address}'] as Record<string, { responses: Record<string, unknown> }>
    ).get?.responses;
    expect(Object.keys(responses ?? {})).toEqual(['200', '400', '404', '429', '500', '503']);
  });

  it('documents the CSV export of trades, holders and traders: format, the text/csv answer and its headers', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.values(methods as Record<string, unknown>).map((operation) => ({
        path,
        ...(operation as {
          parameters?: { name: string; schema: Record<string, unknown> }[];
          responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
        }),
      })),
    );
    const exporting = operations.filter((operation) => operation.responses['200']?.content?.['text/csv']);
    expect(exporting.map((operation) => operation.path).sort()).toEqual([
      '/api/v1/tokens/{address}/holders',
      '/api/v1/tokens/{address}/traders',
      '/api/v1/tokens/{address}/trades',
    ]);
    for (const operation of exporting) {
      expect(operation.parameters?.find((p) => p.name === 'format')?.schema).toMatchObject({
        type: 'string',
        enum: ['json', 'csv'],
        default: 'json',
      });
      expect(Object.keys(operation.responses['200']?.headers ?? {})).toEqual(
        expect.arrayContaining(['X-Export-Rows', 'X-Export-Truncated', 'Link', 'Content-Disposition']),
      );
      expect(operation.responses['200']?.content?.['application/json']).toBeDefined();
    }
    const trades = exporting.find((operation) => operation.path.endsWith('/trades'));
    expect(JSON.stringify(trades?.responses['200']?.content?.['text/csv'])).toContain(
      'block_timestamp,token_address,trader,side',
    );
    // No other operation takes format.
    for (const operation of operations.filter((o) => !exporting.includes(o)))
      expect(operation.parameters?.some((p) => p.name === 'format') ?? false, operation.path).toBe(false);
  });

  it('gives distinct operation ids', () => {
    const ids = restRoutes.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
