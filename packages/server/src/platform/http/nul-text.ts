import { AppError } from '../errors.js';

/**
 * Refuses U+0000 (NUL) anywhere in a request's text: a string or a name in the JSON body, a query
 * parameter, a path parameter. No field of either API means it, and PostgreSQL cannot store it in
 * text: there it failed the statement, so the request answered 500 (and was logged as a server
 * fault) after whatever it had written before that statement. Refused up front, it is a 400 that
 * says where, on both engines, before anything runs. Walked without recursion; the body's depth is
 * bounded before this runs (json-depth.ts).
 */
export function refuseNul(value: unknown, part: 'body' | 'query' | 'path'): void {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: '' }];
  while (stack.length > 0) {
    const { value: v, path } = stack.pop() as { value: unknown; path: string };
    if (typeof v === 'string') {
      if (v.includes('\u0000')) throw nulIn(`'${path || part}' (in the ${part})`, path || part);
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    const entries = Array.isArray(v) ? v.map((item, i) => [String(i), item] as const) : Object.entries(v);
    for (const [key, child] of entries) {
      if (key.includes('\u0000')) throw nulIn(`a name in the ${part}`, path || part);
      stack.push({ value: child, path: path ? `${path}.${key}` : key });
    }
  }
}

/** `param` names the field as validation errors do (its dotted path); for a bad name, where it sits. */
const nulIn = (where: string, param: string) =>
  new AppError(
    400,
    'INVALID_REQUEST',
    `${where.charAt(0).toUpperCase()}${where.slice(1)} contains the character U+0000 (NUL), which no field accepts. Remove it and send the request again.`,
    { param },
  );
