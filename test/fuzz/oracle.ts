import { errorStatus, isErrorCode } from '../../server/errors';
import { knownIssueOf } from './known-issues';
import type { FuzzRequest } from './request';

/** What came back for a request. */
export interface FuzzAnswer {
  status: number;
  headers: Record<string, string>;
  /** The body as text (for the stream: its first bytes). */
  body: string;
  /** Milliseconds until the whole answer (the stream: its first bytes) had arrived. */
  ms: number;
  /** Set when no answer came at all (reset, timeout). */
  failure?: string;
}

/** Every answer arrives within this many milliseconds. */
export const ANSWER_DEADLINE_MS = 1_000;

/** Codes the front may answer any route with, whatever the route documents. */
const FRONT_CODES = new Set([
  'bad_request',
  'method_not_allowed',
  'payload_too_large',
  'rate_limited',
  'request_timeout',
  'headers_too_large',
]);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** The envelope of DESIGN.md section 7: `{"error": {"code", "message", "details?"}}`, code ↔ status. */
function envelopeViolations(answer: FuzzAnswer, method: string): string[] {
  const problems: string[] = [];
  if (!/^application\/json\b/.test(answer.headers['content-type'] ?? ''))
    problems.push(`content-type ${answer.headers['content-type'] ?? '(none)'} is not application/json`);
  if (method === 'HEAD') return problems;
  const parsed = parseJson(answer.body);
  if (!parsed) return [...problems, 'body is not JSON'];
  const body = parsed.value;
  if (!isObject(body) || Object.keys(body).join() !== 'error' || !isObject(body.error))
    return [...problems, 'body is not {"error": {...}}'];
  const { code, message, details, ...rest } = body.error;
  if (!isErrorCode(code)) problems.push(`code ${JSON.stringify(code)} is not in server/errors.ts`);
  else if (errorStatus[code] !== answer.status)
    problems.push(`code ${code} means ${errorStatus[code]}, not ${answer.status}`);
  if (typeof message !== 'string' || message.length === 0) problems.push('message is not a non-empty string');
  if (details !== undefined) {
    const valid =
      Array.isArray(details) &&
      details.every(
        (d) =>
          isObject(d) &&
          typeof d.message === 'string' &&
          (d.field === undefined || typeof d.field === 'string'),
      );
    if (!valid) problems.push('details is not [{field?, message}]');
  }
  if (Object.keys(rest).length > 0) problems.push(`error has unknown keys ${Object.keys(rest).join(', ')}`);
  if (code === 'rate_limited' && !answer.headers['retry-after']) problems.push('429 without Retry-After');
  return problems;
}

/** One tRPC error: `{"error": {"json": {message, code: number, data: {code, httpStatus < 500}}}}`. */
function trpcErrorViolations(item: unknown, where: string): string[] {
  if (!isObject(item) || !isObject(item.error) || !isObject(item.error.json))
    return [`${where}: not a tRPC error`];
  const { message, code, data } = item.error.json;
  const problems: string[] = [];
  if (typeof message !== 'string') problems.push(`${where}: message is not a string`);
  if (typeof code !== 'number') problems.push(`${where}: code is not a JSON-RPC number`);
  if (!isObject(data) || typeof data.code !== 'string' || typeof data.httpStatus !== 'number')
    return [...problems, `${where}: data is not {code, httpStatus}`];
  if (data.httpStatus >= 500)
    problems.push(`${where}: httpStatus ${data.httpStatus} (${data.code}: ${String(message).slice(0, 200)})`);
  if (data.appCode !== null && data.appCode !== undefined && !isErrorCode(data.appCode))
    problems.push(`${where}: appCode ${JSON.stringify(data.appCode)} is not in server/errors.ts`);
  return problems;
}

/** A tRPC answer: success or error per call, no error at or above 500, statuses that agree. */
function trpcViolations(request: FuzzRequest, answer: FuzzAnswer): string[] {
  const parsed = parseJson(answer.body);
  if (!parsed) return request.method === 'HEAD' ? [] : ['body is not JSON'];
  const body = parsed.value;
  if (Array.isArray(body)) {
    if (!request.trpc?.batch) return ['an array answer to a call that is not a batch'];
    const problems = body.flatMap((item, i) => {
      if (!isObject(item) || !('result' in item)) return trpcErrorViolations(item, `call ${i}`);
      return request.trpc?.refused.includes(i)
        ? [`call ${i} (${request.trpc.paths[i]}) succeeded over HTTP`]
        : [];
    });
    const statuses = new Set(
      body.map((item) =>
        isObject(item) && isObject(item.error) && isObject(item.error.json) && isObject(item.error.json.data)
          ? item.error.json.data.httpStatus
          : 200,
      ),
    );
    const expected = statuses.size === 1 ? [...statuses][0] : 207;
    if (expected !== answer.status) problems.push(`HTTP ${answer.status} but the calls say ${expected}`);
    return problems;
  }
  if (isObject(body) && 'result' in body) {
    if (request.trpc?.refused.length) return [`${request.trpc.paths[0]} succeeded over HTTP`];
    return answer.status === 200 ? [] : [`a result with HTTP ${answer.status}`];
  }
  const problems = trpcErrorViolations(body, 'answer');
  const data =
    isObject(body) && isObject(body.error) && isObject(body.error.json) ? body.error.json.data : undefined;
  if (isObject(data) && data.httpStatus !== answer.status)
    problems.push(`HTTP ${answer.status} but httpStatus ${String(data.httpStatus)}`);
  return problems;
}

/**
 * A request node:http will not parse (headers past its limit) is answered before any routing,
 * so in the JSON envelope whatever the path: also on /api/trpc.
 */
function refusedBeforeRouting(answer: FuzzAnswer): boolean {
  const code = (parseJson(answer.body)?.value as { error?: { code?: unknown } } | undefined)?.error?.code;
  return code === 'headers_too_large' && answer.status === 431;
}

/**
 * The properties every answer must have, whatever was asked: an answer at all, within the
 * deadline; no 5xx unless documented (503); on /api/v1 and /objects every non-2xx is the JSON
 * envelope with a code whose status it is; tRPC errors in tRPC's shape below 500. Returns the
 * violations, empty when the answer is fine.
 */
export function checkAnswer(request: FuzzRequest, answer: FuzzAnswer): string[] {
  if (knownIssueOf(request, answer)) return [];
  if (answer.failure) return [`no answer: ${answer.failure}`];
  const problems: string[] = [];
  if (answer.ms > ANSWER_DEADLINE_MS)
    problems.push(`answered in ${Math.round(answer.ms)} ms (> ${ANSWER_DEADLINE_MS} ms)`);
  const { status } = answer;
  const unavailable = status === 503 && request.mayBeUnavailable;
  if (status >= 500 && !unavailable) problems.push(`HTTP ${status}: ${answer.body.slice(0, 300)}`);
  const success = status >= 200 && status < 300;
  if (status >= 300 && status < 400 && status !== 304) {
    // Next.js normalizes trailing slashes with a redirect; a redirect needs somewhere to go.
    if (!answer.headers.location) problems.push(`redirect ${status} without Location`);
    return problems;
  }
  const notModified = status === 304 && request.headers?.['if-none-match'] !== undefined;
  const json = /^application\/json\b/.test(answer.headers['content-type'] ?? '');
  if (request.shape === 'trpc') {
    if (request.method === 'OPTIONS' && status === 204) return problems;
    if (json && refusedBeforeRouting(answer)) problems.push(...envelopeViolations(answer, request.method));
    else problems.push(...trpcViolations(request, answer));
  } else if (request.shape === 'envelope' || request.shape === 'stream') {
    if (!success && !notModified) problems.push(...envelopeViolations(answer, request.method));
    if (
      request.shape === 'stream' &&
      status === 200 &&
      !/^text\/event-stream/.test(answer.headers['content-type'] ?? '')
    )
      problems.push(`stream answered ${answer.headers['content-type']}`);
  } else if (request.shape === 'system') {
    // Health and readiness answer their own JSON (503 included); the front's refusals and the
    // metrics endpoint answer the envelope.
    const own =
      (request.target.startsWith('/api/health') || request.target.startsWith('/api/ready')) &&
      (status === 200 || status === 503);
    if (!success && !own && !notModified) problems.push(...envelopeViolations(answer, request.method));
  } else if (!success && json) {
    // Pages answer HTML (their not-found page included); a JSON answer is the front's envelope.
    problems.push(...envelopeViolations(answer, request.method));
  }
  return problems;
}

/**
 * Deviations that fail nothing but deserve a look: an error code the operation's OpenAPI entry
 * does not list, a refusal on /api/trpc in the envelope rather than tRPC's shape.
 */
export function answerNotes(request: FuzzRequest, answer: FuzzAnswer): string[] {
  if (answer.status >= 300 && answer.status < 400 && answer.status !== 304)
    return [`${request.route}: redirect ${answer.status} (a trailing slash)`];
  const known = knownIssueOf(request, answer);
  if (known) return [`known issue ${known.id}: ${known.summary}`];
  if (request.shape === 'trpc' && refusedBeforeRouting(answer))
    return ['431 headers_too_large on /api/trpc in the JSON envelope (node:http refuses before routing)'];
  const code = undocumentedCode(request, answer);
  return code ? [`${request.route} answered ${code}, not listed in its OpenAPI entry`] : [];
}

function undocumentedCode(request: FuzzRequest, answer: FuzzAnswer): string | undefined {
  if (!request.documentedCodes || answer.status < 400 || request.method === 'HEAD') return undefined;
  const error = (
    parseJson(answer.body)?.value as { error?: { code?: unknown; message?: unknown } } | undefined
  )?.error;
  const code = error?.code;
  if (typeof code !== 'string' || FRONT_CODES.has(code) || code === 'internal') return undefined;
  // An empty path segment routes elsewhere (`//` is one slash): no route, not this operation.
  if (code === 'not_found' && String(error?.message).startsWith('no route')) return undefined;
  return request.documentedCodes.includes(code) ? undefined : code;
}
