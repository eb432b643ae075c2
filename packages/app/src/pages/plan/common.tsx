import type { ComponentChildren } from 'preact';
import type { client, Platform } from '../../api.js';
import { useBrand } from '../../brand.js';
import { useAction } from '../../hooks.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { PageFrame } from '../../ui.js';
import { NoBrand } from '../brand/no-brand.js';

/** The planning pages' types, derived from the client (never restated). */
export type Idea = Awaited<ReturnType<typeof client.ideas.retrieve>>;
export type IdeaStatus = Idea['status'];
export type Draft = Awaited<ReturnType<typeof client.drafts.retrieve>>;
export type DraftSummary = Awaited<ReturnType<typeof client.drafts.update>>;
export type Post = Awaited<ReturnType<typeof client.posts.list>>['posts'][number];
export type Channel = Awaited<ReturnType<typeof client.channels.retrieve>>;
export type Asset = Awaited<ReturnType<typeof client.media.retrieve>>;
export type AssetFit = Awaited<ReturnType<typeof client.media.fit>>;
export type BestTimes = Awaited<ReturnType<typeof client.brands.bestTimes>>;
export type Brand = NonNullable<ReturnType<typeof useBrand>['brand']>;

export const PLATFORMS = Object.keys(PLATFORM_NAMES) as Platform[];

/** Every item of a paged list (`for await` follows `next_after`), up to `max`. */
export async function all<T>(pages: AsyncIterable<T>, max = 1000): Promise<T[]> {
  const out: T[] = [];
  for await (const item of pages) {
    out.push(item);
    if (out.length >= max) break;
  }
  return out;
}

/** A channel as a person knows it: "X @fieldnote". */
export const channelLabel = (c: Pick<Channel, 'platform' | 'handle'>) =>
  `${PLATFORM_NAMES[c.platform]} ${c.handle}`;

/**
 * A per-brand page: until the brand is known it shows the page's heading with a loading line,
 * the failure in words, or an empty state saying to create a brand first; then the page itself
 * (keyed by brand, so switching brands starts it afresh).
 */
export function WithBrand(props: { title: string; children: (brand: Brand) => ComponentChildren }) {
  const { brand, brands, problem } = useBrand();
  if (brand) return <>{props.children(brand)}</>;
  return (
    <PageFrame title={props.title} problem={problem} loading={!brands && 'your brands'}>
      <NoBrand what={props.title} />
    </PageFrame>
  );
}

/** One change the person asked for: `work`, then the outcome in words (`done`) or the failure. */
export type Change = (
  work: () => Promise<unknown>,
  done: string | (() => string),
  where?: string,
) => Promise<boolean>;

/**
 * useAction whose changes reload the page's data (`reload`, from useLoad) before the outcome
 * is announced, failed or not, so what the status line says is already on screen.
 */
export function useChange(reload: () => Promise<void>) {
  const action = useAction();
  const change: Change = (work, done, where) =>
    action.run(
      async () => {
        try {
          await work();
        } finally {
          await reload();
        }
      },
      done,
      where,
    );
  return { ...action, change };
}

/** An asset as a person knows it: its file name, else its alt text. */
export const nameOf = (a: Pick<Asset, 'title' | 'alt'> | undefined, kind: string) =>
  a?.title || a?.alt || `Untitled ${kind}`;

/**
 * Why an uploaded PNG came back as a JPEG, or '' when it did not. The server keeps PNG only for
 * images with transparency (docs/content/media.md): an opaque PNG is re-encoded as JPEG, which
 * looks the same and stays well under every platform's size limit.
 */
export function conversionNote(file: File, asset: Pick<Asset, 'mime'>): string {
  if (file.type !== 'image/png' || asset.mime === 'image/png') return '';
  return ` It was saved as a JPEG: the PNG has no transparency, and a JPEG looks the same at a fraction of the size, well under every platform's limit. A PNG with transparency stays a PNG.`;
}
