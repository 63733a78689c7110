import fc from 'fast-check';
import type { Corpus } from './corpus';
import { finalizeBody } from './finalize-bodies';
import {
  type FuzzRequest,
  ifNoneMatch,
  knownEntries,
  methodMix,
  printable,
  type QueryEntry,
  queryString,
  unknownEntries,
  withHeaders,
} from './request';
import type { RestOperation } from './targets';
import { headerText } from './text';
import { uploadBody } from './uploads';
import { EXCLUSIVE_PARAMETERS, inOrder, integerText, parameterWire } from './values';

/** A path template with each `{name}` filled by an encoded value. */
function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => values[name] ?? '');
}

/** Some requests carry only values their schemas accept; the others anything. */
const mode = fc.oneof(
  { arbitrary: fc.constant(true), weight: 2 },
  { arbitrary: fc.constant(false), weight: 3 },
);

const pathValue = (arbitrary: fc.Arbitrary<string>) =>
  fc.oneof({ arbitrary, weight: 9 }, { arbitrary: fc.constant(''), weight: 1 });

/**
 * A request to a GET operation of the OpenAPI document: path parameters and query parameters
 * from their schemas (valid and hostile, repeated, unknown), chart ranges turned inside out,
 * and now and then another method.
 */
export function restReadRequest(operation: RestOperation, corpus: Corpus): fc.Arbitrary<FuzzRequest> {
  const continuations = corpus.continuations.filter((c) => c.operation === operation.path);
  if (continuations.length === 0)
    return fc.oneof(
      { arbitrary: restReadRequestOf(operation, corpus, true), weight: 4 },
      { arbitrary: restReadRequestOf(operation, corpus, false), weight: 6 },
    );
  const next = fc.constantFrom(...continuations).map((c) =>
    printable({
      route: `${operation.method} ${operation.path}`,
      method: 'GET',
      target: `${c.target}&cursor=${encodeURIComponent(c.cursor)}`,
      shape: 'envelope',
      documentedCodes: operation.documentedCodes,
    }),
  );
  return fc.oneof(
    { arbitrary: restReadRequestOf(operation, corpus, true), weight: 4 },
    { arbitrary: next, weight: 2 },
    { arbitrary: restReadRequestOf(operation, corpus, false), weight: 6 },
  );
}

/** Drops the later parameter of each exclusive pair and orders ranges (a request meant to be valid). */
function withoutConflicts(entries: QueryEntry[]): QueryEntry[] {
  const names = new Set(entries.map(([name]) => name));
  const dropped = new Set(
    EXCLUSIVE_PARAMETERS.filter(([a, b]) => names.has(a) && names.has(b)).map(([, b]) => b),
  );
  const kept = entries.filter(([name]) => !dropped.has(name));
  const ordered = inOrder(Object.fromEntries(kept.filter(([, v]) => v !== null)) as Record<string, string>);
  return kept.filter(([name]) => name in ordered).map(([name, value]) => [name, ordered[name] ?? value]);
}

function restReadRequestOf(
  operation: RestOperation,
  corpus: Corpus,
  valid: boolean,
): fc.Arbitrary<FuzzRequest> {
  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  const queryParams = operation.parameters.filter((p) => p.in === 'query');
  const schemaOf = (name: string) => queryParams.find((p) => p.name === name)?.schema ?? {};
  const hasRange = queryParams.some((p) => p.name === 'from') && queryParams.some((p) => p.name === 'to');
  const draw = { corpus, valid, context: operation.path };
  const path = fc.record(
    Object.fromEntries(
      pathParams.map((p) => [
        p.name,
        valid ? parameterWire(p.name, p.schema, draw) : pathValue(parameterWire(p.name, p.schema, draw)),
      ]),
    ),
  );
  const inverted = fc
    .tuple(integerText({ minimum: 0 }, corpus.times), fc.integer({ min: 0, max: 86_400 }))
    .map(([to, back]): QueryEntry[] => [
      ['from', String(Number(to) + back)],
      ['to', to],
    ]);
  const query = fc
    .tuple(
      knownEntries(
        // A valid request continues a list only with that list's cursor (the continuations).
        queryParams.map((p) => p.name).filter((name) => !valid || name !== 'cursor'),
        (name) => parameterWire(name, schemaOf(name), draw),
        valid,
      ),
      hasRange && !valid ? fc.option(inverted, { freq: 4 }) : fc.constant(null),
    )
    .map(([entries, range]) => {
      if (valid) return withoutConflicts(entries);
      return range ? [...entries.filter(([n]) => n !== 'from' && n !== 'to'), ...range] : entries;
    });
  return fc
    .record({
      path,
      query,
      method: methodMix('GET', 16, ['HEAD', 'POST', 'OPTIONS'], valid ? 0 : 1),
      body: fc.option(fc.constant(new Uint8Array(Buffer.from('{"x":1}'))), { freq: 30 }),
      ifNoneMatch: valid ? fc.constant(undefined) : ifNoneMatch,
    })
    .map(({ path, query, method, body, ifNoneMatch }) =>
      printable({
        route: `${operation.method} ${operation.path}`,
        method,
        target: `${fillPath(operation.path, path)}${queryString(query)}`,
        headers: withHeaders({ 'if-none-match': ifNoneMatch }),
        ...(body && method === 'POST' ? { body } : {}),
        shape: 'envelope',
        documentedCodes: operation.documentedCodes,
      }),
    );
}

/** A request to a POST operation: its documented body type with random content, or another. */
export function restWriteRequest(operation: RestOperation, corpus: Corpus): fc.Arbitrary<FuzzRequest> {
  const pathParams = operation.parameters.filter((p) => p.in === 'path');
  const path = fc.record(
    Object.fromEntries(
      pathParams.map((p) => [p.name, pathValue(parameterWire(p.name, p.schema, { corpus }))]),
    ),
  );
  const body = operation.requestBody?.contentType.startsWith('multipart/')
    ? fc.oneof(
        { arbitrary: uploadBody(corpus), weight: 4 },
        { arbitrary: finalizeBody(corpus, undefined), weight: 1 },
      )
    : fc.oneof(
        { arbitrary: finalizeBody(corpus, operation.requestBody?.schema), weight: 4 },
        { arbitrary: uploadBody(corpus), weight: 1 },
      );
  return fc
    .record({
      path,
      query: unknownEntries,
      method: methodMix('POST', 14, ['GET', 'HEAD']),
      body,
    })
    .map(({ path, query, method, body }) =>
      printable({
        route: `${operation.method} ${operation.path}`,
        method,
        target: `${fillPath(operation.path, path)}${queryString(query)}`,
        ...(method === 'POST' ? { headers: body.headers, body: body.body } : {}),
        shape: 'envelope',
        documentedCodes: operation.documentedCodes,
        mayBeUnavailable: operation.documentedCodes.includes('unavailable'),
      }),
    );
}

/** The live stream: token filters, resume points (query and Last-Event-ID), unknown parameters. */
export function streamRequest(operation: RestOperation, corpus: Corpus): fc.Arbitrary<FuzzRequest> {
  const query = operation.parameters.filter((p) => p.in === 'query');
  const schemaOf = (name: string) => query.find((p) => p.name === name)?.schema ?? {};
  return fc
    .record({
      query: mode.chain((valid) =>
        knownEntries(
          query.map((p) => p.name),
          (name) => parameterWire(name, schemaOf(name), { corpus, valid, context: operation.path }),
          valid,
        ),
      ),
      lastEventId: fc.option(
        fc.oneof(
          integerText({ minimum: 0 }, corpus.blocks).filter((text) => /^[\x20-\x7e]*$/.test(text)),
          headerText,
        ),
        { freq: 3 },
      ),
      method: methodMix('GET', 12, ['HEAD', 'POST']),
    })
    .map(({ query, lastEventId, method }) =>
      printable({
        route: `GET ${operation.path}`,
        method,
        target: `${operation.path}${queryString(query)}`,
        headers: withHeaders({ 'last-event-id': lastEventId ?? undefined }),
        shape: 'stream',
        documentedCodes: operation.documentedCodes,
        mayBeUnavailable: true,
      }),
    );
}
