import { useState } from 'preact/hooks';
import type { Approval, Platform } from './api.js';
import { PLATFORM_LIMITS, PLATFORM_NAMES } from './platforms.js';
import './preview.css';

type Media = Approval['draft']['parts'][number]['media'][number];

/** Code points, as the server counts a part's length. */
export const lengthOf = (text: string) => [...text].length;

/**
 * Where LinkedIn's feed folds a post behind "…see more". LinkedIn publishes no number; organic
 * posts show a 3-line preview on desktop and mobile alike (John Espirian, "See more breakpoints on
 * LinkedIn posts", Sep 2024), which on a phone is about 210 characters. We fold at whichever comes
 * first, at a word, so what shows above the fold here is at most what a phone reader sees.
 */
export const SEE_MORE = { lines: 3, chars: 210 } as const;

/** The text LinkedIn shows before "…see more", or null when the whole post shows. */
export function aboveTheFold(text: string): string | null {
  const lines = text.split('\n');
  let shown = lines.slice(0, SEE_MORE.lines).join('\n');
  const chars = [...shown];
  if (chars.length > SEE_MORE.chars) {
    const cut = chars.slice(0, SEE_MORE.chars).join('');
    const space = cut.search(/\s\S*$/);
    shown = space > SEE_MORE.chars / 2 ? cut.slice(0, space) : cut;
  }
  return shown.trimEnd() === text.trimEnd() ? null : shown.trimEnd();
}

/**
 * How each crop is shown: the shape the platform gives it in the feed (the server picks the
 * platform's crop when media is attached; docs/content/media.md lists why each one).
 */
const CROP_SHAPES: Record<string, { ratio: string; label: string }> = {
  square: { ratio: '1 / 1', label: 'square, 1:1' },
  portrait: { ratio: '4 / 5', label: 'portrait, 4:5' },
  landscape: { ratio: '1.91 / 1', label: 'landscape, 1.91:1' },
  wide: { ratio: '16 / 9', label: 'wide, 16:9' },
};

function MediaPreview({ media, platform }: { media: Media[]; platform: Platform }) {
  if (media.length === 0) return null;
  return (
    <div class="preview-media">
      {media.map((m) => {
        const shape = CROP_SHAPES[m.variant];
        const what = shape
          ? `${PLATFORM_NAMES[platform]} shows this ${m.kind} ${shape.label}`
          : `The ${m.kind} as uploaded`;
        return (
          <figure key={m.asset_id} class="preview-crop">
            {m.url && m.kind === 'image' ? (
              <img
                src={m.url}
                alt={`Attached ${m.kind}, ${m.variant} crop`}
                loading="lazy"
                style={shape ? { aspectRatio: shape.ratio } : undefined}
              />
            ) : (
              <span class="media-missing">An attached {m.kind}</span>
            )}
            <figcaption>{what}.</figcaption>
          </figure>
        );
      })}
    </div>
  );
}

/**
 * The post as the platform will show it. A thread (X, Threads) is published as one post per
 * part, in order, each replying to the one before, with the media on the first: exactly how the
 * publishers send the parts, so each part is its own post here. LinkedIn folds long posts behind
 * "…see more" (SEE_MORE).
 */
export function PostPreview(props: {
  platform: Platform;
  texts: string[];
  media: Media[];
  /** Each part's length against the limit; off beside editors, which show their own. */
  lengths?: boolean;
}) {
  const { platform, texts, media } = props;
  const limit = PLATFORM_LIMITS[platform];
  const thread = texts.length > 1;
  return (
    <section class={`post-preview preview-${platform}`} aria-label={`Preview on ${PLATFORM_NAMES[platform]}`}>
      <p class="preview-title">
        Preview on {PLATFORM_NAMES[platform]}
        {thread ? `: a thread of ${texts.length} posts` : ''}
      </p>
      <ol class="preview-posts">
        {texts.map((text, i) => {
          return (
            <li key={i} class="preview-post">
              {thread && (
                <span class="preview-count">
                  Post {i + 1} of {texts.length}
                </span>
              )}
              {platform === 'linkedin' ? <Folded text={text} /> : <p class="preview-text">{text}</p>}
              {i === 0 && <MediaPreview media={media} platform={platform} />}
              {props.lengths && (
                <Length chars={lengthOf(text)} limit={limit} label={thread ? `Part ${i + 1}` : 'Length'} />
              )}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** LinkedIn's fold: the text above it, a "…see more" that opens the rest, as in the feed. */
function Folded({ text }: { text: string }) {
  const [open, setOpen] = useState(false);
  const shown = aboveTheFold(text);
  if (shown === null || open) return <p class="preview-text">{text}</p>;
  return (
    <>
      <p class="preview-text">
        {shown}
        {'… '}
        <button type="button" class="see-more" onClick={() => setOpen(true)}>
          see more
        </button>
      </p>
      <p class="muted preview-note">
        LinkedIn folds a post after {SEE_MORE.lines} lines or about {SEE_MORE.chars} characters; readers see
        only the text above until they open it.
      </p>
    </>
  );
}

/** A part's length against the platform's limit, and by how much it is over. */
export function Length({ chars, limit, label }: { chars: number; limit: number; label: string }) {
  const over = chars > limit;
  return (
    <p class={over ? 'length over' : 'length'}>
      {label}: {chars} / {limit} characters{over ? ` — ${chars - limit} over the limit` : ''}
    </p>
  );
}
