import fc from 'fast-check';
import type { Corpus } from './corpus';
import { type FuzzRequest, printable, queryString, unknownEntries } from './request';
import type { JsonSchema, TrpcProcedure } from './targets';
import { hostileText, malformedEscapes, percentEncode, wireText } from './text';
import { EXCLUSIVE_PARAMETERS, inOrder, parameterJson } from './values';

/** The input object of a procedure: each property omitted, valid or hostile; unknown keys too. */
function inputObject(
  procedure: TrpcProcedure | undefined,
  corpus: Corpus,
  valid = false,
): fc.Arbitrary<Record<string, unknown>> {
  const properties = (procedure?.input?.properties ?? {}) as Record<string, JsonSchema>;
  const required = (procedure?.input?.required ?? []) as string[];
  const context = procedure?.path ?? '';
  const known = fc.record(
    Object.fromEntries(
      Object.entries(properties)
        // Cursors belong to one list: a valid call starts its list; cursors are fuzzed otherwise.
        .filter(([name]) => !valid || name !== 'cursor')
        .map(([name, s]) => [name, parameterJson(name, s, { corpus, valid, context })]),
    ),
    { requiredKeys: valid ? required.filter((name) => name in properties) : [] },
  );
  if (valid)
    return (known as fc.Arbitrary<Record<string, unknown>>).map((input) => {
      const copy = inOrder(input as Record<string, string | number>) as Record<string, unknown>;
      for (const [kept, dropped] of EXCLUSIVE_PARAMETERS) if (kept in copy) delete copy[dropped];
      return copy;
    });
  const extra = fc.dictionary(
    fc.oneof(fc.constantFrom('extra', 'constructor', 'toString', 'json', 'meta'), hostileText),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 2 },
  );
  return fc
    .tuple(known, fc.option(extra, { freq: 5 }))
    .map(([k, e]) => ({ ...(e ?? {}), ...(k as Record<string, unknown>) }));
}

const ANNOTATIONS = [
  'bigint',
  'Date',
  'undefined',
  'set',
  'map',
  'regexp',
  'number',
  'Error',
  'URL',
  ['class', 'Foo'],
  ['symbol', 'x'],
  ['custom', 'x'],
  ['typed-array', 'Uint8Array'],
];

/** superjson `meta`: type annotations (some absurd, some on forbidden paths) or random JSON. */
const superjsonMeta = fc.oneof(
  fc
    .dictionary(
      fc.oneof(
        fc.constantFrom(
          'limit',
          'address',
          'cursor',
          'from',
          '__proto__',
          'constructor.prototype',
          '',
          'a.b.c',
        ),
        hostileText,
      ),
      fc.oneof(
        fc.constantFrom(...ANNOTATIONS).map((a) => [a]),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      { maxKeys: 3 },
    )
    .map((values) => ({ values })),
  fc.constant({ referentialEqualities: { limit: ['cursor'] } }),
  fc.jsonValue({ maxDepth: 3 }),
);

/** One call's `input`, as the superjson link would wrap it, or not wrapped, or not an object. */
function wrappedInput(procedure: TrpcProcedure | undefined, corpus: Corpus): fc.Arbitrary<unknown> {
  const object = inputObject(procedure, corpus);
  return fc.oneof(
    { arbitrary: inputObject(procedure, corpus, true).map((json) => ({ json })), weight: 8 },
    { arbitrary: object.map((json) => ({ json })), weight: 8 },
    { arbitrary: fc.tuple(object, superjsonMeta).map(([json, meta]) => ({ json, meta })), weight: 1 },
    { arbitrary: object, weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 3 }).map((json) => ({ json })), weight: 1 },
    { arbitrary: fc.jsonValue({ maxDepth: 2 }), weight: 1 },
  );
}

/** JSON text, sometimes with its \uD8xx escapes turned back into raw lone surrogates. */
const jsonWire = (value: unknown) =>
  fc.boolean().map((raw) => {
    const text = JSON.stringify(value) ?? 'null';
    return percentEncode(
      raw
        ? text.replace(/\\u(d[89a-f][0-9a-f]{2})/gi, (_m, hex: string) =>
            String.fromCharCode(Number.parseInt(hex, 16)),
          )
        : text,
    );
  });

/** Malformed `input` values: broken JSON, bad escapes, deep nesting, huge numbers. */
const malformedInput = fc.oneof(
  fc.constantFrom(
    '{',
    '}',
    '{"json":',
    '{"json":{"limit":}}',
    'undefined',
    'NaN',
    "{'json':1}",
    '{"json":1e999999}',
    '%7B%22json%22%3A%7B',
    '%EF%BB%BF%7B%7D',
  ),
  malformedEscapes,
  wireText,
  fc
    .integer({ min: 100, max: 3_000 })
    .map((depth) => percentEncode(`${'['.repeat(depth)}${']'.repeat(depth)}`)),
  fc
    .integer({ min: 100, max: 1_500 })
    .map((depth) => percentEncode(`${'{"json":'.repeat(depth)}1${'}'.repeat(depth)}`)),
);

const NONSENSE_NAMES = [
  'tokens.nope',
  'tokens',
  'tokens.',
  '.list',
  '__proto__',
  'constructor',
  'toString',
  'system.status.x',
  '',
  'TOKENS.LIST',
  'tokens.list ',
];

/** A procedure name: a real one mostly, or one that does not exist, or hostile text. */
function procedureName(procedures: readonly TrpcProcedure[]): fc.Arbitrary<string> {
  return fc.oneof(
    {
      arbitrary: fc.constantFrom(...procedures.filter((p) => p.type === 'query').map((p) => p.path)),
      weight: 8,
    },
    { arbitrary: fc.constantFrom(...REST_ONLY_WRITES), weight: 1 },
    { arbitrary: fc.constantFrom(...NONSENSE_NAMES), weight: 1 },
    { arbitrary: hostileText, weight: 1 },
  );
}

/**
 * The writes, served over REST only: their names as tRPC procedures of earlier versions (the
 * in-process metadata mutations) must never succeed over /api/trpc.
 */
const REST_ONLY_WRITES = ['metadata.createDraft', 'metadata.finalize'];
const mutationPaths = new Set(REST_ONLY_WRITES);

function trpcRequest(
  route: string,
  names: string[],
  batch: boolean,
  input: string | null,
  extra: [string, string | null][],
  method = 'GET',
): FuzzRequest {
  const entries: [string, string | null][] = [
    ...(batch ? [['batch', '1'] as [string, string]] : []),
    ...(input === null ? [] : [['input', input] as [string, string]]),
    ...extra,
  ];
  return printable({
    route,
    method,
    target: `/api/trpc/${names.map(percentEncode).join(',')}${queryString(entries)}`,
    shape: 'trpc',
    trpc: { paths: names, batch, refused: names.flatMap((name, i) => (mutationPaths.has(name) ? [i] : [])) },
  });
}

/** One call of one query procedure, plain or as a batch of one. */
export function trpcQueryRequest(procedure: TrpcProcedure, corpus: Corpus): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      input: fc.option(wrappedInput(procedure, corpus).chain(jsonWire), { freq: 10 }),
      batch: fc.oneof(
        { arbitrary: fc.constant(false), weight: 3 },
        { arbitrary: fc.constant(true), weight: 1 },
      ),
      extra: unknownEntries,
    })
    .map(({ input, batch, extra }) => {
      const wire =
        input === null ? null : batch ? `${percentEncode('{"0":')}${input}${percentEncode('}')}` : input;
      return trpcRequest(`tRPC ${procedure.path}`, [procedure.path], batch, wire, extra);
    });
}

/**
 * A batch of 1 to 12 calls of any procedures (queries, mutations, unknown names), whose input map
 * may miss calls, name calls that are not there, or not be JSON at all.
 */
export function trpcBatchRequest(
  procedures: readonly TrpcProcedure[],
  corpus: Corpus,
): fc.Arbitrary<FuzzRequest> {
  const byPath = new Map(procedures.map((p) => [p.path, p]));
  return fc
    .array(procedureName(procedures), { minLength: 1, maxLength: 12 })
    .chain((names) =>
      fc.record({
        names: fc.constant(names),
        inputs: fc.tuple(
          ...names.map((name) => fc.option(wrappedInput(byPath.get(name), corpus), { freq: 6 })),
        ),
        strays: fc.dictionary(
          fc.constantFrom('12', '-1', 'a', '__proto__', '1.5', '99999999999'),
          wrappedInput(undefined, corpus),
          { maxKeys: 2 },
        ),
        malformed: fc.option(malformedInput, { freq: 10 }),
      }),
    )
    .chain(({ names, inputs, strays, malformed }) => {
      const map: Record<string, unknown> = { ...strays };
      inputs.forEach((input, i) => {
        if (input !== null) map[String(i)] = input;
      });
      return (malformed === null ? jsonWire(map) : fc.constant(malformed)).map((wire) =>
        trpcRequest('tRPC batch', names, true, wire, []),
      );
    });
}

/** The writes' names over tRPC (never served there): GET with input, POST with a body, in batches. */
export function trpcMutationRequest(corpus: Corpus): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      procedure: fc.constantFrom(...REST_ONLY_WRITES),
      method: fc.constantFrom('GET', 'POST'),
      batch: fc.boolean(),
      body: fc.option(wrappedInput(undefined, corpus), { freq: 8 }),
    })
    .chain(({ procedure, method, batch, body }) =>
      fc.tuple(
        fc.constant({ procedure, method, batch }),
        wrappedInput(undefined, corpus).chain(jsonWire),
        fc.constant(body),
      ),
    )
    .map(([{ procedure, method, batch }, wire, raw]) => {
      const request = trpcRequest(
        `tRPC ${procedure} (REST-only write)`,
        [procedure],
        batch,
        method === 'GET' ? wire : null,
        [],
        method,
      );
      if (method === 'POST') {
        request.headers = { 'content-type': 'application/json' };
        request.body = new Uint8Array(Buffer.from(JSON.stringify(raw ?? { json: {} })));
      }
      return request;
    });
}

/** Query calls whose `input` is not JSON, is given twice, or nests far too deep. */
export function trpcMalformedRequest(procedures: readonly TrpcProcedure[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      name: procedureName(procedures),
      input: malformedInput,
      twice: fc.option(malformedInput, { freq: 5 }),
      batch: fc.boolean(),
    })
    .map(({ name, input, twice, batch }) =>
      trpcRequest('tRPC malformed input', [name], batch, input, twice === null ? [] : [['input', twice]]),
    );
}
