import v8 from 'node:v8';

/**
 * V8's `%HaveSameMap`: whether two objects share a hidden class. Objects of one shape that do not
 * are kept alive into the old generation by V8 (docs/benchmarks/history.md, "Issue 20, seventh pass:
 * memory"), so hot paths are held to one class per answer. Natives syntax is a process-wide
 * flag: on only while this one function is compiled.
 */
export function sameHiddenClass(): (a: object, b: object) => boolean {
  v8.setFlagsFromString('--allow-natives-syntax');
  try {
    return new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
  } finally {
    v8.setFlagsFromString('--no-allow-natives-syntax');
  }
}

/** The objects of `objects` whose hidden class is not the first one's. */
export function otherClasses(objects: readonly object[]): object[] {
  const same = sameHiddenClass();
  const [first] = objects;
  if (!first) throw new Error('no objects to compare');
  return objects.filter((o) => !same(first, o));
}
