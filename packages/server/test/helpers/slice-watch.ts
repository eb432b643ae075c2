import { onTestFinished } from 'vitest';
import { sliceWatch } from '../../src/platform/sliced/work.js';

/**
 * Counts, from now until the test ends, the pauses of the sliced reader and its largest slice
 * (the reader's test seam, unset in production). `onPause` is told the count at each pause, so a
 * test can start something (a health check) while the work is still cut into slices.
 */
export function watchSlices(onPause?: (yields: number) => void) {
  const slices = { yields: 0, longestSlice: 0 };
  sliceWatch.seen = (units, paused) => {
    slices.longestSlice = Math.max(slices.longestSlice, units);
    if (paused) {
      slices.yields++;
      onPause?.(slices.yields);
    }
  };
  onTestFinished(() => {
    sliceWatch.seen = undefined;
  });
  return slices;
}
