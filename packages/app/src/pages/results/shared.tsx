import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import { type Brand, client, type MemoryEvidence, type Verdict } from '../../api.js';
import { useBrand } from '../../brand.js';
import { Link } from '../../router.js';
import { Loading, ProblemNotice } from '../../ui.js';
import { NoBrand } from '../brand/no-brand.js';
import './results.css';

/** How each verdict is named to a person, and what it means. */
export const VERDICT_NAMES: Record<Verdict, string> = {
  outperforming: 'Outperforming',
  on_par: 'On par',
  underperforming: 'Underperforming',
  too_early: 'Too early',
  not_enough_data: 'Not enough data',
};

export function VerdictBadge({ verdict }: { verdict: Verdict }) {
  return <span class={`verdict verdict-${verdict}`}>{VERDICT_NAMES[verdict]}</span>;
}

const whole = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const signed = new Intl.NumberFormat(undefined, {
  style: 'percent',
  maximumFractionDigits: 0,
  signDisplay: 'exceptZero',
});

export const formatCount = (n: number) => whole.format(n);
/** A count with its noun in the right number: "1 post", "1,204 posts". */
export const countOf = (n: number, one: string, many = `${one}s`) =>
  `${formatCount(n)} ${n === 1 ? one : many}`;
export const formatShare = (n: number) => percent.format(n);
/** A change as a fraction (0.12 → "+12%"); null is "no earlier period". */
export const formatChange = (n: number | null) => (n === null ? 'no earlier period' : signed.format(n));

/** The first line of a post's text, short enough for a list or a link, cut between words. */
export function excerptOf(text: string, max = 90): string {
  const line = text.split('\n').find((l) => l.trim()) ?? text;
  if (line.length <= max) return line;
  const cut = line.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  // A single word longer than the room is cut where the room ends.
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd().replace(/[,;:.–-]$/, '')}…`;
}

/** Post titles already asked for, shared by every link on every page (a digest cites a post many times). */
const titles = new Map<string, Promise<string>>();
function postTitle(id: string): Promise<string> {
  let title = titles.get(id);
  if (!title) {
    title = client.posts.retrieve(id).then(
      (p) => excerptOf(p.parts[0]?.text ?? '', 60) || 'an empty post',
      () => 'a post that is gone',
    );
    titles.set(id, title);
  }
  return title;
}

/** A post named by the first words of its text (what a person recognises), never by its id. */
function PostTitle({ id }: { id: string }) {
  const [title, setTitle] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    postTitle(id).then((t) => live && setTitle(t));
    return () => {
      live = false;
    };
  }, [id]);
  return <>{title ?? 'a post'}</>;
}

/** A link to a post's page, named by its text (digests and reply themes cite posts by id). */
export const PostLink = ({ id, children }: { id: string; children?: ComponentChildren }) => (
  <Link href={`/posts/${encodeURIComponent(id)}`}>{children ?? <PostTitle id={id} />}</Link>
);

/**
 * A URL from stored data as a link target, only when it is http(s): a `javascript:` or `data:`
 * URL saved into a product or an evidence link never becomes a clickable link.
 */
export function safeHref(url: string | null): string | null {
  if (!url) return null;
  try {
    const { protocol } = new URL(url);
    return protocol === 'https:' || protocol === 'http:' ? url : null;
  } catch {
    return null;
  }
}

/** An outside link (opens in a new tab), or the plain text when the URL is not http(s). */
export function OutLink({ url, children }: { url: string | null; children?: ComponentChildren }) {
  const href = safeHref(url);
  if (!href) return <span>{children ?? url}</span>;
  return (
    <a href={href} rel="noreferrer noopener" target="_blank">
      {children ?? url}
    </a>
  );
}

const EVIDENCE_KINDS: Record<MemoryEvidence['kind'], string> = {
  post: 'Post',
  reply: 'Reply',
  reply_theme: 'Reply theme',
  signal: 'Signal',
  draft: 'Draft',
};

/**
 * Where a Brand Memory entry came from: a post links to its page, a reply theme to Insights,
 * anything with a URL to it; the rest are named with their excerpt.
 */
export function EvidenceList({ evidence }: { evidence: MemoryEvidence[] }) {
  if (evidence.length === 0) return null;
  return (
    <ul class="evidence">
      {evidence.map((e) => {
        const name = `${EVIDENCE_KINDS[e.kind]} ${e.id}`;
        const link =
          e.kind === 'post' ? (
            <PostLink id={e.id}>{name}</PostLink>
          ) : e.kind === 'reply_theme' ? (
            <Link href="/insights">{name}</Link>
          ) : (
            <OutLink url={e.url}>{name}</OutLink>
          );
        return (
          <li key={`${e.kind}-${e.id}`}>
            Evidence: {link}
            {e.excerpt && <q>{excerptOf(e.excerpt, 120)}</q>}
          </li>
        );
      })}
    </ul>
  );
}

/**
 * A per-brand page's body once the brand is known: loading while the brands load, their failure,
 * or an empty state that says to create a brand.
 */
export function WithBrand({
  what,
  children,
}: {
  what: string;
  children: (brand: Brand) => ComponentChildren;
}) {
  const { brand, brands, problem } = useBrand();
  if (problem) return <ProblemNotice problem={problem} />;
  if (!brands) return <Loading what="your brands" />;
  if (!brand) return <NoBrand what={what} />;
  return <>{children(brand)}</>;
}

/** A row of named figures (metrics, totals), each a term and its value. */
export function Figures({ items }: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="figures">
      {items.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A labelled drop-down whose first choice ("Any status") means no filter. */
export function FilterSelect(props: {
  label: string;
  any: string;
  value: string;
  options: [value: string, name: string][];
  onChange(value: string): void;
}) {
  const id = useId();
  return (
    <span>
      <label for={id}>{props.label}</label>
      <select id={id} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="">{props.any}</option>
        {props.options.map(([value, name]) => (
          <option key={value} value={value}>
            {name}
          </option>
        ))}
      </select>
    </span>
  );
}
