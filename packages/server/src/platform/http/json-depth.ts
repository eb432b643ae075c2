import { AppError } from '../errors.js';
import { checkedFromText } from './text-checks.js';

/**
 * How deeply a JSON request body may nest. No route of either service needs more than a few
 * levels; 64 leaves room for free-form objects (agent inputs) and keeps every recursive consumer
 * of a body (validation, canonical JSON for idempotency, serialisation) far from the stack limit.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Depth of a parsed JSON value (a scalar is 0, `[]` and `{}` are 1), counted without recursion.
 * Only containers go on the stack, with their depth beside them: a body of 500,000 numbers is one
 * loop over one array, where a stack entry per value cost about 200 ms on an idle machine (seconds
 * under load), on the event loop, for every such body.
 */
function depthExceeds(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  const containers: object[] = [value];
  const depths: number[] = [1];
  while (containers.length > 0) {
    const v = containers.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v);
    for (let i = 0; i < children.length; i++) {
      const child = children[i];
      if (child === null || typeof child !== 'object') continue;
      containers.push(child);
      depths.push(depth + 1);
    }
  }
  return false;
}

/**
 * How many values a JSON request body may hold, counted from its text as the commas between
 * members and items plus the objects and arrays opened (outside strings): without the second, a
 * body of thousands of 63-deep chains (`[[[…0]]]`) would hold half a million arrays in few commas.
 * The largest body either API takes, a Brand Memory at its limits, counts under 2,500. Parsing
 * cost grows with the count, not the bytes: a 1 MiB object of 90,000 members took 150-300 ms in
 * `JSON.parse` alone (V8 keeps such an object as a dictionary), and as much again in validation
 * and logging, on the event loop, before any key was looked at.
 */
export const MAX_JSON_VALUES = 10_000;

/**
 * What JSON text would exceed, read as JSON would read it (brackets and commas inside strings do
 * not count), in one pass without recursion, before it is parsed: `'depth'` when it opens more
 * than `depthLimit` arrays or objects inside each other, `'values'` when its commas and opened
 * arrays and objects number more than `valuesLimit` (see MAX_JSON_VALUES), else null. V8's `JSON.parse` spends about 4 µs a level: a 1 MiB request
 * body of 500,000 nested arrays held the event loop for about 0.3 s idle, seconds under load, and
 * bodies are parsed before a route authenticates, so any client could. Text that is not JSON can
 * miscount; `JSON.parse` refuses it.
 */
export function jsonTextOverLimits(
  text: string,
  depthLimit: number = MAX_JSON_DEPTH,
  valuesLimit: number = MAX_JSON_VALUES,
): 'depth' | 'values' | null {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x2c /* , */) {
      if (++values > valuesLimit) return 'values';
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > depthLimit) return 'depth';
      if (++values > valuesLimit) return 'values';
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return null;
}

/**
 * Whether JSON text nests deeper than `limit`, without a bound on its values: what a store sends
 * or a platform answers (platform/sliced/json.ts) may list thousands of items, and its size is
 * capped apart.
 */
export const textNestsDeeper = (text: string, limit: number = MAX_JSON_DEPTH): boolean =>
  jsonTextOverLimits(text, limit, Number.POSITIVE_INFINITY) === 'depth';

/** Refuses a body nested deeper than `MAX_JSON_DEPTH` with 400 INVALID_REQUEST, before anything recurses into it. */
export function checkJsonDepth(body: unknown): void {
  if (checkedFromText(body)?.depthBounded) return;
  if (depthExceeds(body, MAX_JSON_DEPTH)) throw tooDeep();
}

export const tooDeep = () =>
  new AppError(
    400,
    'INVALID_REQUEST',
    `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep; no request needs that many.`,
  );

export const tooManyValues = () =>
  new AppError(
    400,
    'INVALID_REQUEST',
    `The JSON body holds more than ${MAX_JSON_VALUES.toLocaleString('en-US')} values (counted as its commas and its objects and arrays); no request needs that many.`,
  );
