import { describe, expect, it } from 'vitest';
import { stringifySteps } from '../../src/platform/sliced/stringify.js';
import { readAtOnce, readSliced, SLICE_UNITS } from '../../src/platform/sliced/work.js';
import { watchSlices } from '../helpers/slice-watch.js';

/*
 * The sliced writer must make what JSON.stringify makes, byte for byte: the stored offer rows and
 * kept idempotency answers made before it are compared with the ones made after (a replay answers
 * the stored text). Each value here is one JSON.stringify treats specially.
 */
describe('JSON written in slices', () => {
  const tricky = {
    __proto_like: JSON.parse('{"__proto__":{"x":1}}'),
    text: '\ud83d\ude00 é \u0000 \ud800 "q" \\ \n \u2028',
    numbers: [-0, 1e21, 0.1, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY],
    left: { u: undefined, f: () => 1, s: Symbol('s'), kept: null },
    holes: [undefined, () => 1, Symbol('s')],
    when: new Date(Date.UTC(2026, 10, 27)),
    own: { toJSON: (key: string) => `toJSON under '${key}'` },
    gone: { toJSON: () => undefined },
    '2': 'two',
    '1': 'one',
    empty: [{}, []],
  };

  it.each([
    ['nested values JSON.stringify treats specially', tricky],
    ['a string alone', 'x'.repeat(100)],
    ['a number alone', 3.5],
    ['null', null],
  ])('%s: the same text as JSON.stringify', (_name, value) => {
    expect(readAtOnce(stringifySteps(value))).toBe(JSON.stringify(value));
  });

  it('leaves out what JSON.stringify leaves out', () => {
    expect(readAtOnce(stringifySteps(undefined))).toBeUndefined();
  });

  it('cuts a large value into slices of bounded work', async () => {
    const value = { variants: Array.from({ length: 50_000 }, (_, i) => ({ sku: `S${i}`, n: i, t: tricky })) };
    const slices = watchSlices();
    const text = await readSliced(stringifySteps(value));
    expect(text).toBe(JSON.stringify(value));
    expect(slices.yields).toBeGreaterThanOrEqual(Math.floor((text as string).length / SLICE_UNITS / 2));
    expect(slices.longestSlice).toBeLessThanOrEqual(2 * SLICE_UNITS);
  });
});
