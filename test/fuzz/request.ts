import fc from 'fast-check';
import { headerText, wireText } from './text';

/** How an answer must look when it is not a success: decided by where the request went. */
export type AnswerShape = 'envelope' | 'trpc' | 'page' | 'stream' | 'system';

/** One generated HTTP request, exactly as sent. */
export interface FuzzRequest {
  /** What it exercises, for the summary: `GET /api/v1/tokens/{address}`, `tRPC batch`, `page /`. */
  route: string;
  method: string;
  /** Path and query, already percent-encoded (hostile bytes included) as they go on the wire. */
  target: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
  shape: AnswerShape;
  /**
   * tRPC: the procedure of each call, whether the request is a batch, and the calls that must
   * not succeed (the writes' names: writes are served over REST only).
   */
  trpc?: { paths: string[]; batch: boolean; refused: number[] };
  /** Error codes the OpenAPI document lists for this operation (others are noted, not failed). */
  documentedCodes?: readonly string[];
  /** A 503 is documented here (`unavailable`, or the readiness answer). */
  mayBeUnavailable?: boolean;
}

function preview(body: Uint8Array): string {
  const text = Buffer.from(body.subarray(0, 600)).toString('latin1');
  const shown = JSON.stringify(text);
  return body.length > 600 ? `${shown}… (${body.length} bytes)` : shown;
}

/** One line a person can replay by hand: method, target, headers and the body's start. */
export function describeRequest(request: FuzzRequest): string {
  const target =
    request.target.length > 900
      ? `${request.target.slice(0, 900)}… (${request.target.length} chars)`
      : request.target;
  const headers = Object.entries(request.headers ?? {})
    .map(
      ([name, value]) =>
        ` -H ${JSON.stringify(`${name}: ${value.length > 200 ? `${value.slice(0, 200)}…` : value}`)}`,
    )
    .join('');
  return `${request.method} ${target}${headers}${request.body ? ` body=${preview(request.body)}` : ''}`;
}

/** Makes fast-check print a generated request as {@link describeRequest} does. */
export function printable(request: FuzzRequest): FuzzRequest {
  return Object.assign(request, { [fc.toStringMethod]: () => describeRequest(request) });
}

/** A query parameter as generated: a name and zero or more wire values (`null`: no `=`). */
export type QueryEntry = [name: string, value: string | null];

/** Joins wire-ready entries into `?a=1&b`, or '' when there are none. */
export function queryString(entries: readonly QueryEntry[]): string {
  if (entries.length === 0) return '';
  return `?${entries.map(([name, value]) => (value === null ? name : `${name}=${value}`)).join('&')}`;
}

const unknownName = fc.oneof(
  fc.constantFrom(
    'foo',
    'debug',
    'admin',
    '__proto__',
    'constructor',
    'callback',
    'format',
    'fields',
    'page',
    'offset',
  ),
  wireText.filter((name) => name.length > 0 && !name.includes('=') && !name.includes('&')),
);

/** Parameters no route knows (they must be ignored), with arbitrary values. */
export const unknownEntries: fc.Arbitrary<QueryEntry[]> = fc.array(
  fc.tuple(unknownName, fc.option(wireText, { nil: null })),
  { maxLength: 3 },
);

/**
 * The entries of known parameters: each omitted, given once, given twice or more (repeated), or
 * given without a value; then unknown parameters mixed in and the order shuffled.
 */
export function knownEntries(
  names: readonly string[],
  valueFor: (name: string) => fc.Arbitrary<string>,
  valid = false,
): fc.Arbitrary<QueryEntry[]> {
  const perName = names.map((name) =>
    fc
      .oneof(
        { arbitrary: fc.constant([] as (string | null)[]), weight: 3 },
        { arbitrary: valueFor(name).map((value) => [value]), weight: 6 },
        { arbitrary: fc.array(valueFor(name), { minLength: 2, maxLength: 3 }), weight: valid ? 0 : 1 },
        { arbitrary: fc.constant([null]), weight: valid ? 0 : 1 },
      )
      .map((values) => values.map((value): QueryEntry => [name, value])),
  );
  return fc
    .tuple(fc.tuple(...perName), unknownEntries)
    .chain(([known, unknown]) =>
      fc.shuffledSubarray([...known.flat(), ...unknown], { minLength: known.flat().length + unknown.length }),
    );
}

/**
 * A request's method: `usual` by its weight, now and then one of `others` (weight 1 unless given;
 * 0 leaves them out). One other is a constant, as fast-check draws it, so seeds replay as before.
 */
export function methodMix(
  usual: string,
  usualWeight: number,
  others: readonly [string, ...string[]],
  othersWeight = 1,
): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constant(usual), weight: usualWeight },
    {
      arbitrary: others.length === 1 ? fc.constant(others[0]) : fc.constantFrom(...others),
      weight: othersWeight,
    },
  );
}

/** If-None-Match as clients send it: none mostly, sometimes `*` (always matches) or junk. */
export const ifNoneMatch = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 8 },
  { arbitrary: fc.constantFrom('*', '"x"', 'W/"x"', '"', '""'), weight: 1 },
  { arbitrary: headerText, weight: 1 },
);

export function withHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}
