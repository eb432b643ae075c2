import { onTestFinished } from 'vitest';
import { sliceWatch } from '../../src/platform/sliced/work.js';

/**
 * Counts, from now until the test ends, the pauses of the sliced reader and its largest slice
 * (the reader's test seam, unset in production).
 */
export function watchSlices() {
  const slices = { yields: 0, longestSlice: 0 };
  sliceWatch.seen = (units, paused) => {
    slices.longestSlice = Math.max(slices.longestSlice, units);
    if (paused) slices.yields++;
  };
  onTestFinished(() => {
    sliceWatch.seen = undefined;
  });
  return slices;
}
