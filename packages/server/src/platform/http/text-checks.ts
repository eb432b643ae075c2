/**
 * What a request body's text already showed before `JSON.parse` (body.ts), kept beside the parsed
 * body so the walks that would prove the same of the parsed value skip it. A walk of a 1 MiB body
 * of 350,000 empty objects cost as much as parsing it, on the event loop, once per check:
 * - `depthBounded`: the text nests at most `MAX_JSON_DEPTH` levels (`jsonTextOverLimits`), so
 *   `checkJsonDepth` has nothing left to walk.
 * - `nulFree`: the text holds no `\u0000` escape, and JSON text cannot hold a raw U+0000 in a
 *   string or a name (`JSON.parse` refuses control characters there), so `refuseNul` has nothing
 *   to find.
 *
 * One WeakMap keyed by the parsed object, in one place: only the body reader sets a mark, a mark
 * goes with its body, and a value built in the process (no text) has none and is walked. A mark
 * is true of the value as parsed; every check runs before anything could change it.
 */
export interface TextChecks {
  readonly depthBounded: boolean;
  readonly nulFree: boolean;
}

const marks = new WeakMap<object, TextChecks>();

/** The two marks a body can get, shared rather than made for each request. */
const NUL_FREE: TextChecks = Object.freeze({ depthBounded: true, nulFree: true });
const MAY_HOLD_NUL: TextChecks = Object.freeze({ depthBounded: true, nulFree: false });

/** Records what `text`, which `body` was parsed from after `jsonTextOverLimits` passed it, showed. */
export function markCheckedText(body: unknown, text: string): void {
  if (typeof body !== 'object' || body === null) return;
  marks.set(body, text.includes('\\u0000') ? MAY_HOLD_NUL : NUL_FREE);
}

/** What the text of `value` showed, or undefined when it was not parsed from a checked body. */
export const checkedFromText = (value: unknown): TextChecks | undefined =>
  typeof value === 'object' && value !== null ? marks.get(value) : undefined;

/**
 * Lets `part`, a value inside `whole` (a batch's message, a call's arguments), carry `whole`'s
 * mark: what held for all of the text holds for any part of it (no deeper, no NUL).
 */
export function partOfCheckedText(whole: unknown, part: unknown): void {
  const mark = checkedFromText(whole);
  if (mark && typeof part === 'object' && part !== null && part !== whole) marks.set(part, mark);
}
