import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import { checkpoint, countWork, readAtOnce, type Steps } from '../../../platform/sliced/work.js';

/** What the reader needs from a page's HTML: JSON-LD blocks, meta tags and the title. */
export interface PageSources {
  /** The text of each `<script type="application/ld+json">`, in page order (the first `MAX_JSON_LD_BLOCKS`). */
  jsonLd: string[];
  /** `<meta property|name=… content=…>`, keys lower-cased, every value in page order. */
  meta: Map<string, string[]>;
  title: string | null;
}

/**
 * How many `application/ld+json` blocks are kept. Pages have a handful (product, breadcrumbs,
 * organisation, reviews); a block that is not JSON costs a thrown exception, about 20 µs, so
 * ninety thousand junk blocks in a 3 MiB page would hold the event loop for seconds.
 */
export const MAX_JSON_LD_BLOCKS = 100;

/**
 * Walks the page once with htmlparser2's tokenizer, which moves forward through the text and never
 * looks back. Its `Parser` is not used: it keeps the stack of open elements in an array it
 * `unshift`s on every open tag and searches on every close tag, so a page of 300,000 unclosed
 * `<a>` followed by as many `</b>` costs the square of that (see work.ts for why that matters).
 * Nothing here needs the element tree: `<script>` and `<title>` are raw-text elements that only
 * their own end tag closes, and the tokenizer knows them without the parser.
 */
export function readPageSources(html: string): PageSources {
  return readAtOnce(walkPageSources(html));
}

/**
 * How many characters the tokenizer is given at a time. It takes a page in pieces and reports
 * positions in the whole text (a tag, an attribute or an entity may straddle two pieces), so the
 * callbacks below slice `html` as if it came at once.
 */
const CHUNK_CHARS = 8_192;

/** `readPageSources` in slices: a checkpoint after every `CHUNK_CHARS` of the page. */
export function* walkPageSources(html: string): Steps<PageSources> {
  const jsonLd: string[] = [];
  const meta = new Map<string, string[]>();
  let title: string | null = null;
  let capture: 'json-ld' | 'title' | null = null;
  // The captured text in pieces, joined once: `+=` on a growing string is linear in V8 too, but
  // an array says so without relying on the engine.
  let pieces: string[] = [];
  let tagName = '';
  let attrs = new Map<string, string>();
  let attrName = '';
  let attrValue = '';

  const slice = (start: number, end: number) => {
    countWork(end - start + 1);
    return html.slice(start, end);
  };
  const openTag = () => {
    countWork();
    const attr = (name: string) => attrs.get(name);
    if (tagName === 'script' && (attr('type') ?? '').trim().toLowerCase() === 'application/ld+json') {
      if (jsonLd.length < MAX_JSON_LD_BLOCKS) {
        capture = 'json-ld';
        pieces = [];
      }
    } else if (tagName === 'title' && title === null) {
      capture = 'title';
      pieces = [];
    } else if (tagName === 'meta' && attr('content') !== undefined) {
      const key = (attr('property') ?? attr('name') ?? attr('itemprop') ?? '').trim().toLowerCase();
      if (!key) return;
      // Appended in place: copying the list on every tag made 40,000 tags cost 800 million copies.
      const values = meta.get(key);
      const value = (attr('content') as string).trim();
      if (values) values.push(value);
      else meta.set(key, [value]);
    }
  };
  const closeCapture = () => {
    // Joining costs what the slices already counted.
    const text = pieces.join('');
    if (capture === 'json-ld') jsonLd.push(text);
    else if (capture === 'title') title = text.trim().replace(/\s+/g, ' ') || null;
    capture = null;
  };

  const callbacks: TokenizerCallbacks = {
    onopentagname(start, end) {
      tagName = slice(start, end).toLowerCase();
      attrs = new Map();
    },
    onattribname(start, end) {
      attrName = slice(start, end).toLowerCase();
    },
    onattribdata(start, end) {
      attrValue += slice(start, end);
    },
    onattribentity(codepoint) {
      countWork();
      attrValue += String.fromCodePoint(codepoint);
    },
    onattribend() {
      countWork();
      // The first of two attributes with one name wins, as in browsers.
      if (!attrs.has(attrName)) attrs.set(attrName, attrValue);
      attrValue = '';
    },
    onopentagend: openTag,
    // `<meta … />`: HTML ignores the slash, so it is an open tag like any other.
    onselfclosingtag: openTag,
    ontext(start, end) {
      if (capture) pieces.push(slice(start, end));
      else countWork();
    },
    ontextentity(codepoint) {
      countWork();
      if (capture) pieces.push(String.fromCodePoint(codepoint));
    },
    onclosetag(start, end) {
      const name = slice(start, end).toLowerCase();
      if ((capture === 'json-ld' && name === 'script') || (capture === 'title' && name === 'title'))
        closeCapture();
    },
    // A page cut off inside a block still gives what it has, as the element would at the end.
    onend() {
      if (capture) closeCapture();
    },
    oncdata: () => countWork(),
    oncomment: () => countWork(),
    ondeclaration: () => countWork(),
    onprocessinginstruction: () => countWork(),
  };
  const tokenizer = new Tokenizer({ decodeEntities: true }, callbacks);
  for (let at = 0; at < html.length; at += CHUNK_CHARS) {
    tokenizer.write(html.slice(at, at + CHUNK_CHARS));
    yield* checkpoint();
  }
  tokenizer.end();
  return { jsonLd, meta, title };
}

/** Resolves an image reference against the page; only http(s) URLs are kept. */
export function resolveImageUrl(raw: unknown, pageUrl: string): string | null {
  if (typeof raw !== 'string' || !raw.trim()) return null;
  countWork(raw.length);
  try {
    const url = new URL(raw.trim(), pageUrl);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
