import { useEffect, useId, useState } from 'preact/hooks';
import { client } from '../../api.js';
import { useAction, useLoad } from '../../hooks.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { Link, useLocation } from '../../router.js';
import { Empty, Outcome, PageFrame, ProblemNotice } from '../../ui.js';
import {
  type Asset,
  type AssetFit,
  all,
  type Brand,
  conversionNote,
  nameOf,
  useChange,
  WithBrand,
} from './common.js';
import './plan.css';

export function MediaPage() {
  return <WithBrand title="Media">{(brand) => <MediaLibrary key={brand.id} brand={brand} />}</WithBrand>;
}

/** The smallest crop of an asset (a thumbnail), else its original. */
const thumbOf = (a: Asset) => a.variants.square?.url ?? a.variants.original?.url ?? null;

function MediaLibrary({ brand }: { brand: Brand }) {
  const { at, navigate } = useLocation();
  const library = useLoad(() => all(client.media.list(brand.id, { limit: 100 })), [brand.id]);
  const action = useChange(library.reload);
  const openId = at.query.get('asset');
  const open = library.data?.find((a) => a.id === openId) ?? null;

  const upload = async (files: File[]) => {
    if (files.length === 0) return;
    const names = files.map((f) => f.name).join(', ');
    let notes = '';
    await action.change(
      async () => {
        for (const f of files) notes += conversionNote(f, await client.media.upload(brand.id, f));
      },
      () => `Uploaded ${names}.${notes}`,
      'add',
    );
  };

  return (
    <PageFrame title="Media" problem={library.problem} loading={!library.data && 'the media library'}>
      <div class="media-add">
        <DropZone busy={action.busy} onFiles={upload} />
        <FromUrl
          busy={action.busy}
          onImport={async (url) => {
            return action.change(() => client.media.fromUrl(brand.id, { url }), `Imported ${url}.`, 'add');
          }}
        />
      </div>
      <Outcome action={action} where="add" />
      {library.data?.length === 0 && (
        <Empty title="No media yet">
          <p>Drop an image or video above, choose a file, or import one from a public URL.</p>
        </Empty>
      )}
      {open && (
        <AssetDetail
          key={open.id}
          asset={open}
          onSaved={library.reload}
          onDelete={() =>
            action.change(
              async () => {
                await client.media.delete(open.id);
                navigate('/library');
              },
              `Deleted “${open.title || open.alt || `the untitled ${open.kind}`}”.`,
              'delete',
            )
          }
        />
      )}
      <Outcome action={action} where="delete" />
      <ul class="library" aria-label="Media library">
        {library.data?.map((a) => (
          <li key={a.id} class={a.id === openId ? 'open' : undefined}>
            <Link href={`/library?asset=${encodeURIComponent(a.id)}`}>
              {thumbOf(a) ? (
                <img class="thumb" src={thumbOf(a) as string} alt="" loading="lazy" />
              ) : (
                <span class="video">{a.kind}</span>
              )}
              <span class="name">{nameOf(a, a.kind)}</span>
            </Link>
            {a.tags.length > 0 && <span class="tags">{a.tags.join(', ')}</span>}
          </li>
        ))}
      </ul>
    </PageFrame>
  );
}

/** Drag and drop files onto it, or use its file button. */
function DropZone(props: { busy: boolean; onFiles: (files: File[]) => void }) {
  const [over, setOver] = useState(false);
  const id = useId();
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: dropping is the pointer way; the file button inside is the keyboard way.
    <div
      class={over ? 'dropzone over' : 'dropzone'}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        props.onFiles([...(e.dataTransfer?.files ?? [])]);
      }}
    >
      <p>Drop images or videos here, or</p>
      <label for={id} class="file-button">
        Choose files to upload
      </label>
      <input
        id={id}
        type="file"
        multiple
        accept="image/*,video/*"
        disabled={props.busy}
        onChange={(e) => {
          const input = e.currentTarget;
          props.onFiles([...(input.files ?? [])]);
          input.value = '';
        }}
      />
    </div>
  );
}

function FromUrl(props: { busy: boolean; onImport: (url: string) => Promise<boolean> }) {
  const [url, setUrl] = useState('');
  const id = useId();
  return (
    <form
      class="from-url"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await props.onImport(url.trim())) setUrl('');
      }}
    >
      <label for={id}>Import from a public URL</label>
      <input id={id} type="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <button type="submit" disabled={props.busy || !url.trim()}>
        Import
      </button>
    </form>
  );
}

const pct = (v: number) => Math.round(v * 100);

/** One asset: its alt text, tags and focal point, and each platform's crop around that point. */
function AssetDetail(props: {
  asset: Asset;
  onSaved: () => Promise<void>;
  onDelete: () => Promise<boolean>;
}) {
  const a = props.asset;
  const action = useAction();
  const [alt, setAlt] = useState(a.alt);
  const [tags, setTags] = useState(a.tags.join(', '));
  const [fx, setFx] = useState(pct(a.focal_point.x));
  const [fy, setFy] = useState(pct(a.focal_point.y));
  const [fit, setFit] = useState<AssetFit | null>(null);
  const id = useId();
  const original = a.variants.original?.url;

  useEffect(() => {
    client.media.fit(a.id).then(setFit, () => setFit(null));
  }, [a.id, a.updated_at]);

  const save = async (e: Event) => {
    e.preventDefault();
    await action.run(async () => {
      await client.media.update(a.id, {
        alt: alt.trim(),
        tags: tags
          .split(',')
          .map((t) => t.trim())
          .filter(Boolean),
        ...(a.kind === 'image' ? { focal_point: { x: fx / 100, y: fy / 100 } } : {}),
      });
      await props.onSaved();
    }, 'Saved the alt text, tags and focal point; the crops follow the focal point.');
  };
  const pick = (e: MouseEvent) => {
    const img = (e.currentTarget as HTMLElement).querySelector('img');
    if (!img || e.target !== img) return;
    const box = img.getBoundingClientRect();
    setFx(Math.min(100, Math.max(0, Math.round(((e.clientX - box.left) / box.width) * 100))));
    setFy(Math.min(100, Math.max(0, Math.round(((e.clientY - box.top) / box.height) * 100))));
  };

  return (
    <section class="asset" aria-labelledby={`${id}-h`}>
      <h2 id={`${id}-h`}>{nameOf(a, a.kind)}</h2>
      <p class="muted">
        {a.kind}, {a.mime}
        {a.width && a.height ? `, ${a.width} × ${a.height}` : ''}, {Math.round(a.bytes / 1024)} KB
        {a.source_url ? `, from ${a.source_url}` : ''}
      </p>
      {action.problem && <ProblemNotice problem={action.problem} />}
      <div class="asset-body">
        {a.kind === 'image' && original ? (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the focal point's number inputs below are the keyboard way.
          // biome-ignore lint/a11y/noStaticElementInteractions: the same: clicking is the pointer way.
          <div class="focal-pick" onClick={pick}>
            <img class="focal-img" src={original} alt={a.alt || 'The image'} />
            <span class="focal-mark" style={{ left: `${fx}%`, top: `${fy}%` }} aria-hidden="true" />
            <p class="hint">Click the image to set its focal point.</p>
          </div>
        ) : (
          original && (
            // biome-ignore lint/a11y/useMediaCaption: the owner's own upload, shown for reference.
            <video src={original} controls class="preview" />
          )
        )}
        <form class="asset-form" onSubmit={save}>
          <label for={`${id}-alt`}>Alt text</label>
          <textarea
            id={`${id}-alt`}
            rows={3}
            maxLength={1500}
            value={alt}
            onInput={(e) => setAlt(e.currentTarget.value)}
          />
          <label for={`${id}-tags`}>Tags (comma-separated)</label>
          <input id={`${id}-tags`} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
          {a.kind === 'image' && (
            <fieldset class="focal">
              <legend>Focal point</legend>
              <label for={`${id}-fx`}>From the left (%)</label>
              <input
                id={`${id}-fx`}
                type="number"
                min={0}
                max={100}
                value={fx}
                onInput={(e) => setFx(Number(e.currentTarget.value))}
              />
              <label for={`${id}-fy`}>From the top (%)</label>
              <input
                id={`${id}-fy`}
                type="number"
                min={0}
                max={100}
                value={fy}
                onInput={(e) => setFy(Number(e.currentTarget.value))}
              />
            </fieldset>
          )}
          <div class="actions">
            <button type="submit" class="primary" disabled={action.busy}>
              Save changes
            </button>
            <button type="button" class="danger" disabled={action.busy} onClick={props.onDelete}>
              Delete
            </button>
          </div>
          <p role="status" class="notice">
            {action.notice}
          </p>
        </form>
      </div>
      <h3>Crops by platform</h3>
      {!fit ? (
        <p class="loading">Loading the crops…</p>
      ) : (
        <ul class="crops" aria-label="Crops by platform">
          {fit.platforms.map((p) => (
            <li key={p.platform}>
              <figure>
                {a.kind === 'image' && (
                  <img
                    class="crop-img"
                    src={`${p.preferred_url}?v=${encodeURIComponent(a.updated_at)}`}
                    alt={`${PLATFORM_NAMES[p.platform]} crop (${p.preferred_variant})`}
                    loading="lazy"
                  />
                )}
                <figcaption>
                  <strong>{PLATFORM_NAMES[p.platform]}</strong>: {p.preferred_variant}
                  {p.ok ? '' : ' — does not fit'}. {p.why}
                  {p.warnings.map((w) => (
                    <span key={w} class="warn">
                      {' '}
                      {w}
                    </span>
                  ))}
                </figcaption>
              </figure>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
