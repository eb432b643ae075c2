import { keptJsonText } from './sliced/kept-json.js';

/**
 * Answers that are constants of the build (the built-in agents' list, on REST and MCP alike):
 * made once, frozen all the way down, and their JSON kept by whoever serialises them
 * (`send` in http/mount.ts, `dataJson` in content/mcp/call-tool.ts). Only a value this module
 * froze counts: `Object.isFrozen` says nothing of what is inside, and JSON kept for an object
 * whose inner arrays could still change would go stale. A write to a frozen value throws
 * (modules are strict) instead.
 */
const frozenDeep = new WeakSet<object>();

/** `value` with every object and array in it frozen, and recorded as such. */
export function deepFrozen<T>(value: T): T {
  if (value && typeof value === 'object' && !frozenDeep.has(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFrozen(inner);
    frozenDeep.add(value);
  }
  return value;
}

/** Whether `value` came out of `deepFrozen`, so nothing in it can change and its JSON may be kept. */
export const isDeepFrozen = (value: unknown): boolean =>
  typeof value === 'object' && value !== null && frozenDeep.has(value);

/**
 * The JSON kept for each frozen value, by form: `''` is `JSON.stringify(value)` (REST's body);
 * another form is the caller's own wrapping of it, such as MCP's data under each mode label.
 * One store for both, so a value's kept JSON has one rule: made once, never stale (it is frozen).
 */
const keptJson = new WeakMap<object, Map<string, string>>();

/**
 * `make()`, kept per form when `value` came out of `deepFrozen` (so the same string comes back,
 * and a comparison of it is a pointer check), made anew on every call otherwise.
 */
export function keptJsonOf(value: unknown, form: string, make: () => string): string {
  if (!isDeepFrozen(value)) return make();
  const object = value as object;
  let forms = keptJson.get(object);
  if (!forms) {
    forms = new Map();
    keptJson.set(object, forms);
  }
  let json = forms.get(form);
  if (json === undefined) {
    json = make();
    forms.set(form, json);
  }
  return json;
}

/**
 * `JSON.stringify(value)`, made once for a value that came out of `deepFrozen`, and the text
 * already made in slices for one that has it (sliced/kept-json.ts: a large offer).
 */
export function jsonOf(value: unknown): string | undefined {
  if (!isDeepFrozen(value)) return keptJsonText(value) ?? JSON.stringify(value);
  return keptJsonOf(value, '', () => JSON.stringify(value));
}
