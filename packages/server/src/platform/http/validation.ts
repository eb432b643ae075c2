import { z } from 'zod';
import { AppError } from '../errors.js';

type Where = 'params' | 'query' | 'body';

function describe(issue: z.core.$ZodIssue, where: Where): { message: string; param: string } {
  const path = issue.path.map(String);
  const field = path.join('.');
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys;
    const fields = keys.map((k) => (field ? `${field}.${k}` : k));
    return {
      message: `Unknown ${keys.length === 1 ? 'field' : 'fields'} ${fields.map((k) => `'${k}'`).join(', ')} in the ${where === 'body' ? 'request body' : where}.`,
      param: fields[0] ?? where,
    };
  }
  const name = field || where;
  if (issue.code === 'invalid_type' && issue.input === undefined) {
    return { message: `'${name}' is required.`, param: name };
  }
  return { message: `'${name}' is invalid: ${issue.message}.`, param: name };
}

/** Validates one part of the request and turns the first problem into a 400 that names the field. */
export function validate<S extends z.ZodType>(schema: S, value: unknown, where: Where): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const first = result.error.issues[0];
  if (!first) throw new AppError(400, 'INVALID_REQUEST', `The ${where} is invalid.`);
  const { message, param } = describe(first, where);
  const more = result.error.issues.length - 1;
  throw new AppError(
    400,
    'INVALID_REQUEST',
    more > 0 ? `${message} (${more} more ${more === 1 ? 'problem' : 'problems'})` : message,
    {
      param,
    },
  );
}

/** No body schema means "no body": only nothing or `{}` is accepted. */
export const emptyBody = z.strictObject({});
