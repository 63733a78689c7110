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

  it('gives distinct operation ids', () => {
    const ids = restRoutes.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
