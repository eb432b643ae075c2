/**
 * A count of the steps the product-page reader takes, for the tests that prove its cost is linear
 * in the page's size (test/commerce/product-page-hostile.test.ts).
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
 * A plain module-level number: the reader is synchronous, so nothing interleaves with one read, and
 * adding to it costs nothing worth measuring.
 */
export const readerWork = { units: 0 };

/** Adds `units` steps of reader work (see `readerWork`). */
export function countWork(units = 1): void {
  readerWork.units += units;
}
