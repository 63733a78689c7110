/**
 * Error codes of the public API (DESIGN.md section 7) and the HTTP status each one answers with.
 * This table is the single source: the REST adapter, the tRPC error formatter and the OpenAPI
 * document all read it.
 */
export const errorStatus = {
  invalid_parameter: 400,
  search_view_conflict: 400,
  invalid_range: 400,
  invalid_cursor: 400,
  invalid_address: 400,
  image_url_forbidden: 400,
  invalid_image: 400,
  bad_request: 400,
  invalid_signature: 401,
  unauthorized: 401,
  not_owner: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  not_indexed: 409,
  already_finalized: 409,
  payload_too_large: 413,
  uri_too_long: 414,
  unsupported_media_type: 415,
  headers_too_large: 431,
  launch_mismatch: 422,
  rate_limited: 429,
  storage_budget_exceeded: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export const errorCodes = Object.keys(errorStatus) as ErrorCode[];

export interface ErrorDetail {
  /** Name of the offending parameter or field, when there is one. */
  field?: string;
  message: string;
}

/** The JSON body of every non-2xx answer. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
}

/**
 * An expected failure with a public code. Anything thrown that is not an AppError is a bug and
 * is reported as `internal` without its message or stack. Recognize one with {@link isAppError}.
 */
export class AppError extends Error {
  override name = 'AppError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers, e.g. Retry-After for rate_limited. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = errorStatus[code];
  }

  toBody(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.details && this.details.length > 0 ? { details: this.details } : {}),
      },
    };
  }
}

/**
 * Whether `value` is an AppError. A class test is enough: a process loads this module once
 * (docs/architecture.md, "One copy of each module").
 */
export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorStatus, value);
}

/**
 * Whether `error` is (or, thrown through a tRPC caller, wraps) an AppError with this code.
 * @example if (isAppErrorCode(error, 'not_found')) notFound();
 */
export function isAppErrorCode(error: unknown, code: ErrorCode): boolean {
  return appErrorCodeOf(error) === code;
}

/** The code of `error` if it is (or, thrown through a tRPC caller, wraps) an AppError. */
export function appErrorCodeOf(error: unknown): ErrorCode | undefined {
  const candidate = isAppError(error) ? error : error instanceof Error ? error.cause : undefined;
  return isAppError(candidate) ? candidate.code : undefined;
}
