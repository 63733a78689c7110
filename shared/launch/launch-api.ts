import type { Address, Hex } from 'viem';
import { parseRetryAfter } from '../http/retry-after';
import type { DraftResponse, FinalizeResponse } from '../metadata/api';

/** A non-2xx answer of the REST API (DESIGN.md section 7), with what a retry needs to know. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: { field?: string; message: string }[] = [],
    /** From Retry-After, for 429. */
    readonly retryAfterMs: number | undefined = undefined,
  ) {
    super(message);
  }

  /** The value of a detail entry, e.g. `indexed_through_block` of a 409 not_indexed. */
  detail(field: string): string | undefined {
    return this.details.find((entry) => entry.field === field)?.message;
  }
}

async function readAnswer<T>(response: Response): Promise<T> {
  if (response.ok) return (await response.json()) as T;
  let body: { error?: { code?: string; message?: string; details?: { field?: string; message: string }[] } } =
    {};
  try {
    body = await response.json();
  } catch {
    // A proxy's HTML error page or an empty body: fall back to the status below.
  }
  throw new ApiError(
    response.status,
    body.error?.code ?? `http_${response.status}`,
    body.error?.message ?? `the server answered ${response.status}`,
    body.error?.details ?? [],
    parseRetryAfter(response.headers.get('retry-after')),
  );
}

/** POST /api/v1/token-metadata: the draft's fields by their API names, and the image file if any. */
export async function uploadDraft(
  fields: Record<string, string>,
  image: File | null,
  fetchImpl: typeof fetch = fetch,
): Promise<DraftResponse> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (image) form.append('image', image, image.name);
  return readAnswer(await fetchImpl('/api/v1/token-metadata', { method: 'POST', body: form }));
}

export interface FinalizeRequest {
  token_address: Address;
  transaction_hash: Hex;
  signature: Hex;
}

/** POST /api/v1/token-metadata/{draft}/finalize. */
export async function postFinalize(
  draftId: string,
  body: FinalizeRequest,
  fetchImpl: typeof fetch = fetch,
): Promise<FinalizeResponse> {
  return readAnswer(
    await fetchImpl(`/api/v1/token-metadata/${encodeURIComponent(draftId)}/finalize`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}
