/**
 * Work on outside input cut into slices with a turn of the event loop between them: the
 * product-page reader and the JSON of stores, platforms and the model server (sliced/json.ts).
 * It began as the product-page reader's, and the history below is that reader's.
 *
 * A count of the steps the product-page reader takes, for the tests that prove its cost is linear
 * in the page's size (test/commerce/product-page-hostile.test.ts), and the slices it is cut into.
 *
 * The threat: a store's page is outside input of up to 3 MiB that is parsed on the event loop both
 * services share, after the fetch deadline has stopped counting. One loop whose cost grows with the
 * square of a count on the page (meta tags, offers, prices, nesting) let 40,000 `<meta>` tags hold
 * the process for 30 s. So every loop over store-supplied data adds what it walks here: one unit per
 * element visited, looked up or compared, and one per character for work over a string. A test
 * builds the worst pages the caps allow, at the cap and at half of it, and asserts that the count
 * stays under a fixed multiple of the page's size, which a quadratic loop cannot do at these sizes.
 * It is a counter, not a clock, so the proof does not depend on how busy the machine is.
 *
 * Linear was not enough: 47,000 JSON-LD offers in one 3 MiB page still held the loop 4-5 s on a
 * loaded machine, in one synchronous call. So the reader is written as generators that `yield` at
 * `checkpoint()`s once `SLICE_UNITS` of work have been done since the last pause, and the server
 * drives them with `readSliced`, which gives the loop a turn (`setImmediate`) at every pause. The
 * same generators run to the end at once through `readAtOnce` for the synchronous API.
 *
 * Plain module-level numbers: a slice runs synchronously, so nothing interleaves with one slice;
 * reads may interleave between slices, which only makes `sinceYield` reach its bound sooner.
 */
export const readerWork = {
  units: 0,
  /** Units counted since a checkpoint last paused. */
  sinceYield: 0,
};

/**
 * Told each slice's units and whether a pause follows it: the tests count the pauses and the
 * largest slice through it. Unset in production, where nothing keeps those figures.
 */
export const sliceWatch: { seen?: (units: number, paused: boolean) => void } = {};

/**
 * Work between two pauses: about 10-20 ms on this 2-core machine under a load of 15 (the reader
 * measured 0.6-1 µs per unit there), a few ms on a quiet one. Smaller slices only add pauses.
 */
export const SLICE_UNITS = 16_384;

/** Adds `units` steps of reader work (see `readerWork`). */
export function countWork(units = 1): void {
  readerWork.units += units;
  readerWork.sinceYield += units;
}

/**
 * Adds `units` steps that each take about `weight` times as long as a usual one (the streaming
 * JSON parser, sliced/json.ts): the linear proof counts `units`, the slice fills `weight` times as
 * fast, so a slice of such steps takes about as long as any other.
 */
export function countSlowWork(units: number, weight: number): void {
  readerWork.units += units;
  readerWork.sinceYield += units * weight;
}

/** A step of the reader that may pause: `yield* checkpoint()` in every loop over the page. */
export type Steps<T> = Generator<void, T, void>;

/** Pauses when a slice's worth of work has been done since the last pause. */
export function* checkpoint(): Steps<void> {
  if (readerWork.sinceYield < SLICE_UNITS) return;
  readerWork.sinceYield = 0;
  yield;
}

/**
 * Pauses first if `units` more would overrun the slice: before a step that cannot be cut (a
 * JSON.parse), so that it does not land on top of a slice's worth of other work.
 */
export function* makeRoom(units: number): Steps<void> {
  if (readerWork.sinceYield === 0 || readerWork.sinceYield + units <= SLICE_UNITS) return;
  readerWork.sinceYield = 0;
  yield;
}

/** Runs the steps to the end in one call (the synchronous API, and small inputs). */
export function readAtOnce<T>(steps: Steps<T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/**
 * Runs the steps and lets the event loop turn at every pause, so that other requests (a health
 * check, another offer) are answered while a large page is read. `setImmediate`, not a resolved
 * promise: a microtask would run before any I/O callback and keep the loop held.
 */
export async function readSliced<T>(steps: Steps<T>): Promise<T> {
  for (;;) {
    const before = readerWork.units;
    const next = steps.next();
    sliceWatch.seen?.(readerWork.units - before, !next.done);
    if (next.done) return next.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
