import { AppError } from '../errors.js';

/**
 * How deeply a JSON request body may nest. No route of either service needs more than a few
 * levels; 64 leaves room for free-form objects (agent inputs) and keeps every recursive consumer
 * of a body (validation, canonical JSON for idempotency, serialisation) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;

/** Depth of a parsed JSON value (a scalar is 0, `[]` and `{}` are 1), counted without recursion. */
function depthExceeds(value: unknown, limit: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: v, depth } = stack.pop() as { value: unknown; depth: number };
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v))
      stack.push({ value: child, depth: depth + 1 });
  }
  return false;
}

/** Refuses a body nested deeper than `MAX_JSON_DEPTH` with 400 INVALID_REQUEST, before anything recurses into it. */
export function checkJsonDepth(body: unknown): void {
  if (depthExceeds(body, MAX_JSON_DEPTH)) {
    throw new AppError(
      400,
      'INVALID_REQUEST',
      `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep; no request needs that many.`,
    );
  }
}
