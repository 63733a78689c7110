import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { isConnectionError } from '../../db/connector';
import { AppError, type ErrorDetail, isAppError, isErrorCode } from '../../errors';

/** A schema's refusal (one copy of zod per process, so a class test). */
export function isZodError(value: unknown): value is ZodError {
  return value instanceof ZodError;
}

/**
 * Turns anything a procedure threw into the public error. This is the one place the mapping
 * lives: validation failures become 400s with per-field details, AppErrors keep their code, and
 * everything else is `internal` with no message or stack from the original.
 */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  if (isAppError(error)) return { appError: error, unexpected: false };
  if (error instanceof TRPCError) {
    if (isAppError(error.cause)) return { appError: error.cause, unexpected: false };
    if (isZodError(error.cause)) return { appError: fromZodError(error.cause), unexpected: false };
  }
  if (isZodError(error)) return { appError: fromZodError(error), unexpected: false };
  if (isStatementTimeout(error))
    return {
      appError: new AppError(
        'unavailable',
        'the database took too long to answer and the read was cancelled; retry shortly',
        undefined,
        { 'retry-after': '1' },
      ),
      unexpected: false,
    };
  // Down, restarting, frozen (a session our deadline cut) or failing over: no replica could
  // answer instead, and the connection layer reconnects by itself.
  if (isConnectionError(error))
    return {
      appError: new AppError('unavailable', 'the database could not be reached; retry shortly', undefined, {
        'retry-after': '1',
      }),
      unexpected: false,
    };
  return { appError: new AppError('internal', 'Internal error'), unexpected: true };
}

/**
 * A statement cancelled by statement_timeout (SQLSTATE 57014, READ_STATEMENT_TIMEOUT_MS): the
 * server is overloaded or a read cost more than its budget. Drizzle wraps driver errors, so the
 * cause chain is walked.
 */
export function isStatementTimeout(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if ((current as { code?: unknown }).code === '57014') return true;
    current = current.cause;
  }
  return false;
}

export function fromZodError(error: ZodError): AppError {
  const details: ErrorDetail[] = error.issues.map((issue) => ({
    ...(issue.path.length > 0 ? { field: issue.path.join('.') } : {}),
    message: issue.message,
  }));
  // A rule with its own code (search_view_conflict, invalid_address, ...) outranks the generic one.
  const specific = error.issues
    .map((issue) =>
      issue.code === 'custom' || 'params' in issue
        ? (issue as { params?: { code?: unknown } }).params?.code
        : undefined,
    )
    .find(isErrorCode);
  const code = specific ?? 'invalid_parameter';
  const first = details[0];
  const message = first
    ? first.field && !first.message.startsWith(first.field)
      ? `${first.field}: ${first.message}`
      : first.message
    : 'invalid input';
  return new AppError(code, message, details);
}
