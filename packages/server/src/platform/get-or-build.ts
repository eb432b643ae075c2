/**
 * The value `map` holds for `key`, built by `build(key)` and kept there the first time it is
 * asked for. For things derived from an object that hold no state of their own (an executor's
 * stores, a context's service), so one built once is the same as one built on every call, only
 * cheaper; a WeakMap, so each goes when its key does.
 */
export function getOrBuild<K extends object, V>(map: WeakMap<K, V>, key: K, build: (key: K) => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = build(key);
    map.set(key, value);
  }
  return value;
}
