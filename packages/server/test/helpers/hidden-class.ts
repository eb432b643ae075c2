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

/**
 * How many hidden classes `objects` have between them. A regression (a spread-built object per
 * request) gives each its own, so as many classes as objects; a one-time transition that V8
 * makes while the objects are made (a field's representation generalised because another test
 * file in the same worker made `{}` objects with that field first, which deprecates the shared
 * map) gives two. Counting tolerates that one transition and still sees the regression.
 */
export function classCount(objects: readonly object[]): number {
  const same = sameHiddenClass();
  const representatives: object[] = [];
  for (const o of objects) if (!representatives.some((r) => same(r, o))) representatives.push(o);
  return representatives.length;
}
