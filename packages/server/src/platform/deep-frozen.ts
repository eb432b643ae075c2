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

const keptJson = new WeakMap<object, string>();

/** `JSON.stringify(value)`, made once for a value that came out of `deepFrozen`. */
export function jsonOf(value: unknown): string | undefined {
  if (!isDeepFrozen(value)) return JSON.stringify(value);
  const object = value as object;
  let json = keptJson.get(object);
  if (json === undefined) {
    json = JSON.stringify(object);
    keptJson.set(object, json);
  }
  return json;
}
