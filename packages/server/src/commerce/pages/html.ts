import type { Response } from 'express';
import type { Money } from '../schemas/common.js';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Everything shown on a page goes through this; it is safe in text and in quoted attributes. */
export const esc = (value: unknown) => String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

/** Tagged template that escapes every interpolation unless it is already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  values.forEach((v, i) => {
    const part = Array.isArray(v)
      ? v.map((x) => (x instanceof Html ? x.value : esc(x))).join('')
      : v instanceof Html
        ? v.value
        : esc(v);
    out += part + (strings[i + 1] ?? '');
  });
  return new Html(out);
}

export function formatMoney(m: Money): string {
  try {
    const fmt = new Intl.NumberFormat('en-US', { style: 'currency', currency: m.currency });
    const digits = fmt.resolvedOptions().maximumFractionDigits ?? 2;
    return fmt.format(m.amount / 10 ** digits);
  } catch {
    return `${m.amount} ${m.currency} (minor units)`;
  }
}

const STYLE = `
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; background: #f6f7f9; color: #1b1f24; }
  main { max-width: 40rem; margin: 2rem auto; background: #fff; padding: 1.5rem 2rem; border-radius: 8px;
         box-shadow: 0 1px 3px rgba(0,0,0,.12); }
  h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 1.5rem; }
  fieldset { border: 1px solid #c9ced6; border-radius: 6px; } legend { font-weight: 600; }
  .actions { display: flex; gap: .75rem; margin-top: 1.5rem; flex-wrap: wrap; }
  button { font: inherit; padding: .6rem 1.2rem; border-radius: 6px; border: 1px solid #1b1f24; cursor: pointer; }
  button.primary { background: #1647c4; color: #fff; border-color: #1647c4; }
  button:focus-visible, input:focus-visible, select:focus-visible { outline: 3px solid #f2b01e; outline-offset: 2px; }
  table { border-collapse: collapse; width: 100%; font-size: .9rem; } th, td { text-align: left; padding: .3rem .4rem;
          border-bottom: 1px solid #e3e6ea; vertical-align: top; }
  .muted { color: #545b66; } .error { color: #a3140b; } code { word-break: break-all; }
  input, select { max-width: 100%; box-sizing: border-box; font: inherit; }
  a { color: #1647c4; }
  .scroll { overflow-x: auto; max-width: 100%; }
  .scroll:focus-visible { outline: 3px solid #f2b01e; }
  .scroll table { min-width: 36rem; }
  .filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; }
  .filters label { display: block; font-size: .85rem; }
  .facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; }
  .facts dt { font-weight: 600; } .facts dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
  @media (max-width: 30rem) { main { margin: 0; padding: 1rem; border-radius: 0; } }
`;

/**
 * Security headers for every page: nothing loads from elsewhere, no framing (clickjacking an
 * "Approve" button), no caching, and by default no Referer carrying a token in the URL.
 * `referrerPolicy: 'same-origin'` is for pages whose forms post back to this origin and hold
 * nothing secret in their URL (the dashboard): under `no-referrer` a browser sends
 * `Origin: null` on the page's own form posts, which the CSRF check cannot tell from a
 * cross-site form.
 */
export function sendPage(
  res: Response,
  status: number,
  title: string,
  body: Html,
  opts: {
    formTargets?: string[];
    wide?: boolean;
    referrerPolicy?: 'no-referrer' | 'same-origin';
    /** Same-origin scripts the page loads (the passkey script); without them, no script runs at all. */
    scripts?: string[];
    /**
     * The one origin the page's script may send a request to (the pay page: the store's card
     * tokenizer, already judged). Without it nothing may be fetched (`default-src 'none'`).
     */
    connectTo?: string;
  } = {},
): void {
  const formAction = ["'self'", ...(opts.formTargets ?? [])].join(' ');
  const scripts = opts.scripts ?? [];
  const scriptSrc = `${scripts.length ? "; script-src 'self'" : ''}${opts.connectTo ? `; connect-src ${opts.connectTo}` : ''}`;
  res
    .status(status)
    .set({
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'${scriptSrc}`,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': opts.referrerPolicy ?? 'no-referrer',
      'Cache-Control': 'no-store',
    })
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title><style>${STYLE}${opts.wide ? 'main{max-width:72rem}' : ''}</style></head><body><main>${body.value}</main>${scripts.map((src) => `<script src="${esc(src)}"></script>`).join('')}</body></html>`,
    );
}
