import { TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { AppError, type ErrorDetail, isErrorCode } from '../../errors';

/**
 * Turns anything a procedure threw into the public error. This is the one place the mapping
 * lives: validation failures become 400s with per-field details, AppErrors keep their code, and
 * everything else is `internal` with no message or stack from the original.
 */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  if (error instanceof AppError) return { appError: error, unexpected: false };
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return { appError: error.cause, unexpected: false };
    if (error.cause instanceof ZodError) return { appError: fromZodError(error.cause), unexpected: false };
  }
  if (error instanceof ZodError) return { appError: fromZodError(error), unexpected: false };
  return { appError: new AppError('internal', 'Internal error'), unexpected: true };
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
