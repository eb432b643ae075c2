import { AppError } from '../errors.js';

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
 * Bodies parsed from text that `textNestsDeeper` passed (body.ts): `checkJsonDepth` has nothing
 * left to walk in them. A walk of a 1 MiB body of 350,000 empty objects still cost as much as
 * parsing it.
 */
export const depthCheckedText = new WeakSet<object>();

/**
 * Whether JSON text opens more than `limit` arrays or objects inside each other, read as JSON
 * would read it (brackets inside strings do not count), in one pass without recursion, before it
 * is parsed. V8's `JSON.parse` spends about 4 µs a level: a 1 MiB request body of 500,000 nested
 * arrays held the event loop for about 0.3 s idle, seconds under load, and bodies are parsed
 * before a route authenticates, so any client could. Store JSON is read the same way
 * (commerce/merchants/store-json.ts). Text that is not JSON can miscount; `JSON.parse` refuses it.
 */
export function textNestsDeeper(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return false;
}

/** Refuses a body nested deeper than `MAX_JSON_DEPTH` with 400 INVALID_REQUEST, before anything recurses into it. */
export function checkJsonDepth(body: unknown): void {
  if (typeof body === 'object' && body !== null && depthCheckedText.has(body)) return;
  if (depthExceeds(body, MAX_JSON_DEPTH)) throw tooDeep();
}

export const tooDeep = () =>
  new AppError(
    400,
    'INVALID_REQUEST',
    `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep; no request needs that many.`,
  );
