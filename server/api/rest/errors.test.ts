import { TRPCError } from '@trpc/server';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { listTokensInput, tokenAddressInput } from '../../../shared/api/tokens';
import { AppError, errorStatus } from '../../errors';
import { errorResponse } from './dispatch';
import { toAppError } from './errors';

function zodErrorOf(schema: z.ZodType, input: unknown) {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected a validation error');
  return result.error;
}

describe('error mapping', () => {
  it('keeps an AppError as is, directly or wrapped by tRPC', () => {
    const error = new AppError('not_found', 'gone');
    expect(toAppError(error).appError).toBe(error);
    expect(toAppError(new TRPCError({ code: 'NOT_FOUND', cause: error })).appError).toBe(error);
  });

  it('maps input validation to 400 invalid_parameter with the field named', () => {
    const { appError } = toAppError(
      new TRPCError({ code: 'BAD_REQUEST', cause: zodErrorOf(listTokensInput, { limit: '0' }) }),
    );
    expect(appError.code).toBe('invalid_parameter');
    expect(appError.status).toBe(400);
    expect(appError.details).toEqual([{ field: 'limit', message: 'limit must be an integer from 1 to 100' }]);
  });

  it('lets a rule with its own code win: search with view is search_view_conflict', () => {
    const { appError } = toAppError(zodErrorOf(listTokensInput, { search: 'pep', view: 'top' }));
    expect(appError.code).toBe('search_view_conflict');
  });

  it('maps a malformed address to invalid_address', () => {
    expect(toAppError(zodErrorOf(tokenAddressInput, { address: '0xzz' })).appError.code).toBe(
      'invalid_address',
    );
  });

  it('hides unexpected errors as internal, with no message or stack', async () => {
    const secret = new Error('password=hunter2 at /srv/app/server/db.ts:10');
    const mapped = toAppError(secret);
    expect(mapped.unexpected).toBe(true);
    expect(mapped.appError.code).toBe('internal');
    const response = errorResponse(
      new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: new TypeError('boom') }),
      pino({ level: 'silent' }),
    );
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: { code: 'internal', message: 'Internal error' } });
    expect(text).not.toMatch(/boom|at |\.ts/);
  });

  it('answers every code with its documented status and the envelope', async () => {
    for (const [code, status] of Object.entries(errorStatus)) {
      const response = errorResponse(new AppError(code as keyof typeof errorStatus, `msg ${code}`));
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await response.json()).toEqual({ error: { code, message: `msg ${code}` } });
    }
  });

  it('carries extra headers such as Retry-After', () => {
    const response = errorResponse(
      new AppError('rate_limited', 'slow down', undefined, { 'retry-after': '7' }),
    );
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it('accepts canonical integers only for limit', () => {
    for (const bad of ['abc', '-1', '1.5', '1e1', ' 5', '0x10', '', '101', '0']) {
      expect(listTokensInput.safeParse({ limit: bad }).success, bad).toBe(false);
    }
    for (const [good, value] of [
      ['1', 1],
      ['100', 100],
      [50, 50],
    ] as const) {
      expect(listTokensInput.parse({ limit: good }).limit).toBe(value);
    }
    expect(listTokensInput.parse({}).limit).toBe(20);
  });
});
