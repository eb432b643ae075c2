import { AppError } from '../errors.js';
import { checkedFromText } from './text-checks.js';

/** Where the text was: a REST request's part, or an MCP tool call's arguments. */
export type NulPart = 'body' | 'query' | 'path' | 'arguments';

/**
 * Refuses U+0000 (NUL) anywhere in a request's text: a string or a name in the JSON body, a query
 * parameter, a path parameter, an MCP tool's arguments. No field of either API means it, and
 * PostgreSQL cannot store it in text: there it failed the statement, so the request answered 500
 * (and was logged as a server fault) after whatever it had written before that statement. Refused
 * up front, it is a 400 that says where, on both engines, before anything runs. Walked without
 * recursion; the body's depth is bounded before this runs (json-depth.ts). A body whose text
 * showed it holds none is not walked (text-checks.ts).
 */
export function refuseNul(value: unknown, part: NulPart): void {
  if (checkedFromText(value)?.nulFree) return;
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw nulIn(`'${part}' (in the ${part})`, part);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  // Only containers go on the stack, and a field's path is spelled out only for the error: a
  // stack entry and a path string per value cost about 300 ms on an idle machine (seconds under
  // load) for a 1 MiB body of 500,000 numbers, on the event loop.
  const stack: Container[] = [{ value, parent: null, key: '' }];
  while (stack.length > 0) {
    const at = stack.pop() as Container;
    const v = at.value;
    const keys = Array.isArray(v) ? null : Object.keys(v);
    const n = keys ? keys.length : (v as unknown[]).length;
    for (let i = 0; i < n; i++) {
      const key = keys ? (keys[i] as string) : i;
      if (typeof key === 'string' && key.includes('\u0000'))
        throw nulIn(`a name in the ${part}`, pathOf(at) || part);
      const child: unknown = (v as Record<string | number, unknown>)[key];
      if (typeof child === 'string') {
        if (child.includes('\u0000')) {
          const path = pathOf(at, key);
          throw nulIn(`'${path}' (in the ${part})`, path);
        }
      } else if (child !== null && typeof child === 'object') stack.push({ value: child, parent: at, key });
    }
  }
}

interface Container {
  value: object;
  parent: Container | null;
  key: string | number;
}

/** The dotted path of a container (and of one of its fields, when given), as validation errors name it. */
function pathOf(at: Container, key?: string | number): string {
  const parts: Array<string | number> = key === undefined ? [] : [key];
  for (let c: Container | null = at; c?.parent; c = c.parent) parts.push(c.key);
  return parts.reverse().join('.');
}

/** `param` names the field as validation errors do (its dotted path); for a bad name, where it sits. */
const nulIn = (where: string, param: string) =>
  new AppError(
    400,
    'INVALID_REQUEST',
    `${where.charAt(0).toUpperCase()}${where.slice(1)} contains the character U+0000 (NUL), which no field accepts. Remove it and send the request again.`,
    { param },
  );
