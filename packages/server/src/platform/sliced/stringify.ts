import { checkpoint, countWork, makeRoom, type Steps } from './work.js';

/**
 * `JSON.stringify(value)` in slices, for values whose size a store decides: an offer carries every
 * variant of its page (docs/commerce/live.md), and a 3 MiB page of 47,000 JSON-LD offers makes an
 * offer of about 4.5 MB. The threat: one `JSON.stringify` of it held the event loop both services
 * share for 80-280 ms on the loaded machine, and the old path made three (the answer, the stored
 * row, the idempotency record). This writer counts one unit per character it writes and pauses at
 * `checkpoint()`s, so `readSliced` gives the loop a turn between slices, as the reader does.
 *
 * No library fits: the async stringifiers on npm (stream-json-stringify, json-yieldify,
 * yieldable-json) return a stream or take a callback and pause on their own schedule, uncounted
 * where the tests count pauses (`sliceWatch`); we need one string, stored and answered alike. This
 * one is small because it serves plain data:
 * the same text as `JSON.stringify` for what JSON.parse or our services make (objects, arrays,
 * strings, numbers, booleans, null, `undefined` members left out, `toJSON` honoured), which the
 * offer tests check byte for byte. A leaf is written by `JSON.stringify` itself, so escaping and
 * number formatting cannot differ.
 */
export function* stringifySteps(value: unknown): Steps<string | undefined> {
  const v = resolved(value, '');
  if (skipped(v)) return undefined;
  const out = new Writer();
  yield* writeValue(out, v);
  return out.text();
}

/**
 * Characters this writer has written, for the tests that show a large answer is written once
 * (not once for the answer, once for its row, once for its idempotency record). Counted beside
 * the slice's units (`countWork`), which bound the slices.
 */
export const writerWork = { chars: 0 };

/**
 * The text so far: the pieces of the running slice, and each finished slice's pieces joined once
 * (so no join at the end walks every piece of a 4.5 MB text at once).
 */
class Writer {
  private pieces: string[] = [];
  private slices: string[] = [];

  push(piece: string): void {
    this.pieces.push(piece);
    countWork(piece.length);
    writerWork.chars += piece.length;
  }

  /** Joins the running slice's pieces, then lets `checkpoint` pause if a slice is done. */
  *pause(): Steps<void> {
    if (this.pieces.length >= 1024) this.flush();
    yield* checkpoint();
  }

  text(): string {
    this.flush();
    return this.slices.join('');
  }

  private flush(): void {
    this.slices.push(this.pieces.join(''));
    this.pieces = [];
  }
}

type Json = Record<string, unknown>;

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const skipped = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

/** `value` as JSON.stringify sees it under `key`: a Date (or anything with `toJSON`) by what that returns. */
function resolved(value: unknown, key: string): unknown {
  const toJson =
    value !== null && typeof value === 'object' ? (value as { toJSON?: unknown }).toJSON : undefined;
  return typeof toJson === 'function' ? toJson.call(value, key) : value;
}

/** Writes `v`, already `resolved` and not `skipped`. */
function* writeValue(out: Writer, v: unknown): Steps<void> {
  if (v === null || typeof v !== 'object') {
    // A string may be as long as the page: room first, so it does not land on a full slice.
    if (typeof v === 'string') yield* makeRoom(v.length);
    out.push(JSON.stringify(v));
    return;
  }
  if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.push(',');
      const item = resolved(v[i], String(i));
      if (skipped(item)) out.push('null');
      else yield* writeValue(out, item);
      yield* out.pause();
    }
    out.push(']');
    return;
  }
  out.push('{');
  let first = true;
  for (const name of Object.keys(v)) {
    const member = resolved((v as Json)[name], name);
    if (skipped(member)) continue;
    out.push(first ? `${JSON.stringify(name)}:` : `,${JSON.stringify(name)}:`);
    first = false;
    yield* writeValue(out, member);
    yield* out.pause();
  }
  out.push('}');
}
