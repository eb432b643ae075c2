import { AppError } from '../errors.js';

/** Where the text was: a REST request's part, or an MCP tool call's arguments. */
export type NulPart = 'body' | 'query' | 'path' | 'arguments';

/**
 * Refuses U+0000 (NUL) anywhere in a request's text: a string or a name in the JSON body, a query
 * parameter, a path parameter, an MCP tool's arguments. No field of either API means it, and
 * PostgreSQL cannot store it in text: there it failed the statement, so the request answered 500
 * (and was logged as a server fault) after whatever it had written before that statement. Refused
 * up front, it is a 400 that says where, on both engines, before anything runs. Walked without
 * recursion; the body's depth is bounded before this runs (json-depth.ts).
 *
 * Every request passes through here and almost none holds a NUL, so the walk keeps no paths: it
 * only answers whether there is one. The path is found by a second walk, once one was.
 */
export function refuseNul(value: unknown, part: NulPart): void {
  if (holdsNul(value)) throwWithPath(value, part);
}

/** True when a string or a name anywhere in `value` holds U+0000. */
function holdsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
      continue;
    }
    if (v === null || typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
      continue;
    }
    for (const key of Object.keys(v)) {
      if (key.includes('\u0000')) return true;
      stack.push((v as Record<string, unknown>)[key]);
    }
  }
  return false;
}

/**
 * The walk that names the field: the same order as ever, so the error names the same one as
 * before the fast walk existed (the first NUL met, depth first from the last key).
 */
function throwWithPath(value: unknown, part: NulPart): never {
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
  // holdsNul found one: the two walks visit the same strings and names.
  throw new Error('refuseNul: a NUL was found but not located');
}

/** `param` names the field as validation errors do (its dotted path); for a bad name, where it sits. */
const nulIn = (where: string, param: string) =>
  new AppError(
    400,
    'INVALID_REQUEST',
    `${where.charAt(0).toUpperCase()}${where.slice(1)} contains the character U+0000 (NUL), which no field accepts. Remove it and send the request again.`,
    { param },
  );
