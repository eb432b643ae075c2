import { AppError } from '../../platform/errors.js';

/**
 * Domain error codes beyond the platform ones. Every code here is listed with its status in
 * docs/content/errors.md; 409 means "not in this state", 422 "valid JSON, but breaks a rule".
 */
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const unprocessable = (code: string, message: string, param?: string) =>
  new AppError(422, code, message, param === undefined ? {} : { param });
export const invalidTransition = (message: string) => conflict('INVALID_TRANSITION', message);
