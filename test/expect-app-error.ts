import { expect } from 'vitest';
import { AppError, type ErrorCode } from '../server/errors';

/**
 * What `run` threw, asserted to be the AppError of `code` (`label` names the case in a failure);
 * fails when it throws anything else or nothing.
 */
export function expectAppError(run: () => unknown, code: ErrorCode, label?: string): AppError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, label).toBeInstanceOf(AppError);
  expect((thrown as AppError).code, label).toBe(code);
  return thrown as AppError;
}
