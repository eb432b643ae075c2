import { Parser } from 'htmlparser2';

/** What the reader needs from a page's HTML: JSON-LD blocks, meta tags and the title. */
export interface PageSources {
  /** The text of each `<script type="application/ld+json">`, in page order. */
  jsonLd: string[];
  /** `<meta property|name=… content=…>`, keys lower-cased, every value in page order. */
  meta: Map<string, string[]>;
  title: string | null;
}

/** Walks the page once with htmlparser2's streaming parser (no DOM is built). */
export function readPageSources(html: string): PageSources {
  const jsonLd: string[] = [];
  const meta = new Map<string, string[]>();
  let title: string | null = null;
  let capture: 'json-ld' | 'title' | null = null;
  let buffer = '';

  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'script' && (attrs.type ?? '').trim().toLowerCase() === 'application/ld+json') {
          capture = 'json-ld';
          buffer = '';
        } else if (name === 'title' && title === null) {
          capture = 'title';
          buffer = '';
        } else if (name === 'meta' && attrs.content !== undefined) {
          const key = (attrs.property ?? attrs.name ?? attrs.itemprop ?? '').trim().toLowerCase();
          if (key) meta.set(key, [...(meta.get(key) ?? []), attrs.content.trim()]);
        }
      },
      ontext(text) {
        if (capture) buffer += text;
      },
      onclosetag(name) {
        if (capture === 'json-ld' && name === 'script') jsonLd.push(buffer);
        if (capture === 'title' && name === 'title') title = buffer.trim().replace(/\s+/g, ' ') || null;
        if ((capture === 'json-ld' && name === 'script') || (capture === 'title' && name === 'title'))
          capture = null;
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return { jsonLd, meta, title };
}

/** Resolves an image reference against the page; only http(s) URLs are kept. */
export function resolveImageUrl(raw: unknown, pageUrl: string): string | null {
  if (typeof raw !== 'string' || !raw.trim()) return null;
  try {
    const url = new URL(raw.trim(), pageUrl);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}
