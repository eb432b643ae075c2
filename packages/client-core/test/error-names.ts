// Shared by both clients' dist tests: what a user sees of an error thrown by the BUILT bundle.
// esbuild renames classes that refer to themselves (`_NotFoundError`); logs showed that name.
import { expect } from 'vitest';

/** Every error class the core defines, as each client exports it. */
export const CORE_ERROR_NAMES = [
  'BadRequestError',
  'AuthenticationError',
  'PermissionDeniedError',
  'NotFoundError',
  'ConflictError',
  'UnprocessableEntityError',
  'RateLimitError',
  'InternalServerError',
  'ConnectionError',
  'TimeoutError',
  'APIUserAbortError',
  'ResponseTooLargeError',
] as const;

/**
 * Checks that each exported class (`lib[exported]`) has its real name in `.name`, on its
 * instances, at the start of their stack, and in Node's `inspect` (what console.log prints).
 * `names` maps an exported name to the class's real name when they differ (a client's
 * `CommerceApiError` is the core's `ApiError`).
 */
export function expectRealErrorNames(
  lib: object,
  names: Record<string, string>,
  inspect: (value: unknown) => string,
): void {
  for (const [exported, realName] of Object.entries(names)) {
    const ErrorClass = (lib as Record<string, unknown>)[exported] as new (message: string) => Error;
    expect(typeof ErrorClass, exported).toBe('function');
    const error = new ErrorClass('boom');
    expect(ErrorClass.name, exported).toBe(realName);
    expect(error.name, exported).toBe(realName);
    expect(error.stack?.split('\n')[0], exported).toBe(`${realName}: boom`);
    expect(inspect(error).split('\n')[0], exported).toBe(`${realName}: boom`);
  }
}
