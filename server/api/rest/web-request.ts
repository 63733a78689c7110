import { MIN_BLOCK_HEADER } from '../min-block';
import { type RestDispatcher, type RestRequest, toResponse } from './dispatch';

/**
 * A web Request as the dispatcher's one input: what tests and benchmarks call the dispatcher
 * with (the front builds the same shape from node:http). A POST's Request is its body.
 * @example const answer = await dispatcher.answer(restRequestOf(new Request('http://x/api/v1/tokens')));
 */
export function restRequestOf(request: Request, client?: string): RestRequest {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    query: url.searchParams,
    ifNoneMatch: request.headers.get('if-none-match'),
    requestId: request.headers.get('x-request-id'),
    minBlock: request.headers.get(MIN_BLOCK_HEADER),
    client,
    ...(request.method === 'POST' ? { body: request } : {}),
  };
}

/**
 * Answers a web Request with a web Response (no body for HEAD).
 * @example const response = await answerWebRequest(dispatcher, new Request('http://x/api/v1/tokens'));
 */
export async function answerWebRequest(dispatcher: RestDispatcher, request: Request): Promise<Response> {
  return toResponse(await dispatcher.answer(restRequestOf(request)), request.method);
}
