import { AppError, notFound } from '../../platform/errors.js';
import type { Caller, ContentContext } from '../context.js';
import type { BrandRow } from '../db/stores/brands-store.js';
import type { DraftVersionRow, DraftWithParts } from '../db/stores/drafts-store.js';
import type { ContentStores } from '../db/stores/index.js';
import { MAX_PARTS, PLATFORM_LIMITS, type Platform } from '../domain.js';
import type { MediaAsset } from '../media/schemas.js';
import type { Page } from '../schemas/common.js';
import type { DraftView } from '../schemas/drafts.js';
import { charCount } from '../text.js';
import { memoryOf, requireBrand } from './brands.js';
import { conflict, unprocessable } from './errors.js';
import { moveIdeaBySystem } from './ideas.js';
import { voiceOf } from './memory.js';
import { draftView, type StoredPart, versionView } from './views.js';
import { voiceCheck } from './voice-check.js';

type Action = 'create' | 'generate' | 'rewrite' | 'edit' | 'attach_media';
const MAX_MEDIA = 4;

/** Limits are checked on every write: a stored draft always fits its platform. */
export function checkParts(platform: Platform, parts: StoredPart[]): void {
  if (parts.length > MAX_PARTS[platform])
    throw unprocessable(
      'TOO_MANY_PARTS',
      `${parts.length} parts; ${platform} ${MAX_PARTS[platform] === 1 ? 'takes a single part' : `allows at most ${MAX_PARTS[platform]}`}.`,
      'parts',
    );
  const limit = PLATFORM_LIMITS[platform];
  parts.forEach((p, i) => {
    const n = charCount(p.text);
    if (n > limit)
      throw unprocessable(
        'TOO_LONG',
        `Part ${i + 1} has ${n} characters; ${platform} allows ${limit}.`,
        `parts.${i}.text`,
      );
  });
}

export function partsFromInput(input: {
  parts?: { text: string }[] | undefined;
  text?: string | undefined;
}): string[] {
  if (input.parts && input.text !== undefined)
    throw new AppError(400, 'INVALID_REQUEST', "Give either 'parts' or 'text', not both.", { param: 'text' });
  if (input.parts) return input.parts.map((p) => p.text);
  if (input.text !== undefined) return [input.text];
  throw new AppError(400, 'INVALID_REQUEST', "'parts' or 'text' is required.", { param: 'parts' });
}

/** New text keeps the media already on the first part: media belongs to the post, not the wording. */
const withMedia = (texts: string[], old: StoredPart[] | null): StoredPart[] =>
  texts.map((text, i) => ({ text, media: i === 0 ? (old?.[0]?.media ?? []) : [] }));

async function requireDraft(ctx: Pick<ContentContext, 'stores'>, id: string) {
  const draft = await ctx.stores.drafts.get(id);
  if (!draft) throw notFound('draft', id);
  return draft;
}

function assertEditable(draft: DraftWithParts) {
  if (draft.status === 'scheduled' || draft.status === 'published')
    throw conflict(
      'DRAFT_LOCKED',
      `Draft '${draft.id}' is ${draft.status}; its post carries the text now. Edit the post (PATCH /v1/posts/:id) while it is scheduled.`,
    );
}

/**
 * Adds the next version of a draft, or 409 DRAFT_CHANGED when another version landed since the
 * caller read `version - 1` (the store compares and sets `current_version`): no edit is lost
 * and no version number is written twice.
 */
export async function addDraftVersion(tx: ContentStores, v: DraftVersionRow): Promise<void> {
  if (!(await tx.drafts.addVersion(v)))
    throw conflict(
      'DRAFT_CHANGED',
      `Draft '${v.draft_id}' got a new version while this request ran; fetch it and apply your change again.`,
    );
}

const draftExists = (ideaId: string | null, platform: string) => () =>
  conflict(
    'DRAFT_EXISTS',
    `Idea '${ideaId}' already has a ${platform} draft; one draft per platform. Edit it to add a version.`,
  );

/** A pending approval follows the draft's latest version, with a fresh voice check. */
async function refreshPendingApproval(
  tx: ContentStores,
  brand: BrandRow,
  draft: DraftWithParts,
  version: number,
  parts: StoredPart[],
  at: string,
) {
  const store = tx.approvals;
  const pending = await store.pendingForDraft(draft.id);
  if (!pending) return;
  await store.updateIfPending(
    pending.id,
    {
      draft_version: version,
      voice_check: voiceCheck(memoryOf(brand), draft.platform, parts),
    },
    at,
  );
}

async function addVersion(
  ctx: ContentContext,
  draft: DraftWithParts,
  parts: StoredPart[],
  action: Action,
  note: string | null,
  caller: Caller,
): Promise<DraftView> {
  checkParts(draft.platform, parts);
  await ctx.transaction(async (tx) => {
    const current = await tx.drafts.get(draft.id);
    if (!current) throw notFound('draft', draft.id);
    assertEditable(current);
    const at = ctx.clock.now().toISOString();
    const version = current.current_version + 1;
    await addDraftVersion(tx, {
      draft_id: draft.id,
      version,
      parts,
      action,
      note,
      source: caller.source,
      key_id: caller.keyId ?? null,
      created_at: at,
    });
    const brand = await tx.brands.get(draft.brand_id);
    if (brand) await refreshPendingApproval(tx, brand, current, version, parts, at);
  });
  return getDraft(ctx, draft.id);
}

async function insertDraft(
  tx: ContentStores,
  ctx: ContentContext,
  input: {
    brandId: string;
    ideaId: string | null;
    platform: Platform;
    parts: StoredPart[];
    action: Action;
    caller: Caller;
  },
): Promise<string> {
  const at = ctx.clock.now().toISOString();
  const id = ctx.ids.make('drf');
  await tx.drafts.insert(
    {
      id,
      brand_id: input.brandId,
      idea_id: input.ideaId,
      platform: input.platform,
      status: 'draft',
      created_at: at,
      updated_at: at,
    },
    draftExists(input.ideaId, input.platform),
  );
  await addDraftVersion(tx, {
    draft_id: id,
    version: 1,
    parts: input.parts,
    action: input.action,
    note: null,
    source: input.caller.source,
    key_id: input.caller.keyId ?? null,
    created_at: at,
  });
  await moveIdeaBySystem(tx, input.ideaId, 'drafting', at);
  return id;
}

export async function getDraft(ctx: ContentContext, id: string): Promise<DraftView> {
  return draftView(await requireDraft(ctx, id));
}

export async function getDraftDetail(ctx: ContentContext, id: string) {
  const draft = await requireDraft(ctx, id);
  const versions = await ctx.stores.drafts.versions(id);
  return { ...draftView(draft), versions: versions.map(versionView) };
}

export async function getDraftVersion(ctx: ContentContext, id: string, version: number) {
  await requireDraft(ctx, id);
  const v = await ctx.stores.drafts.version(id, version);
  if (!v) throw notFound('draft version', `${id}@${version}`);
  return versionView(v);
}

export async function listDrafts(
  ctx: ContentContext,
  filter: {
    brand_id?: string | undefined;
    idea_id?: string | undefined;
    platform?: Platform | undefined;
    status?: string | undefined;
  },
  opts: { limit: number; after?: string | undefined },
): Promise<Page<DraftView>> {
  const page = await ctx.stores.drafts.list(
    { brandId: filter.brand_id, ideaId: filter.idea_id, platform: filter.platform, status: filter.status },
    opts.limit,
    opts.after,
  );
  return { ...page, items: page.items.map(draftView) };
}

export async function createDraft(
  ctx: ContentContext,
  input: {
    brand_id: string;
    platform: Platform;
    idea_id?: string | undefined;
    parts?: { text: string }[] | undefined;
    text?: string | undefined;
  },
  caller: Caller,
): Promise<DraftView> {
  await requireBrand(ctx, input.brand_id);
  const parts = withMedia(partsFromInput(input), null);
  checkParts(input.platform, parts);
  if (input.idea_id) {
    const idea = await ctx.stores.ideas.get(input.idea_id);
    if (!idea) throw notFound('idea', input.idea_id);
    if (idea.brand_id !== input.brand_id)
      throw unprocessable('BRAND_MISMATCH', `Idea '${input.idea_id}' belongs to another brand.`, 'idea_id');
  }
  // Checked in the transaction that inserts, and backed by the unique index on (idea, platform):
  // a concurrent create gets the same 409, never a 500.
  const id = await ctx.transaction(async (tx) => {
    const existing = input.idea_id ? await tx.drafts.forIdea(input.idea_id, input.platform) : undefined;
    if (existing)
      throw conflict(
        'DRAFT_EXISTS',
        `Idea '${input.idea_id}' already has a ${input.platform} draft ('${existing.id}'); one draft per platform. Edit it to add a version.`,
      );
    return insertDraft(tx, ctx, {
      brandId: input.brand_id,
      ideaId: input.idea_id ?? null,
      platform: input.platform,
      parts,
      action: 'create',
      caller,
    });
  });
  return getDraft(ctx, id);
}

/**
 * `draft_idea` / POST /v1/drafts/generate: one draft per platform. A platform that already has
 * a draft for the idea gets a new version instead of a second draft.
 */
export async function generateDrafts(
  ctx: ContentContext,
  input: { idea_id: string; platforms: Platform[] },
  caller: Caller,
): Promise<DraftView[]> {
  const idea = await ctx.stores.ideas.get(input.idea_id);
  if (!idea) throw notFound('idea', input.idea_id);
  const brand = await requireBrand(ctx, idea.brand_id);
  const voice = voiceOf(brand.name, memoryOf(brand));
  const platforms = [...new Set(input.platforms)];
  const existing = new Map<Platform, DraftWithParts>();
  for (const platform of platforms) {
    const d = await ctx.stores.drafts.forIdea(idea.id, platform);
    if (d) {
      assertEditable(d);
      existing.set(platform, d);
    }
  }
  const texts = new Map<Platform, string[]>();
  for (const platform of platforms) {
    const out = await ctx.model.draft({
      voice,
      platform,
      idea: { title: idea.title, angle: idea.angle, notes: idea.notes },
      // Regenerating gives a new take rather than the same text again.
      take: existing.get(platform)?.current_version ?? 0,
    });
    checkParts(platform, withMedia(out.parts, null));
    texts.set(platform, out.parts);
  }
  const ids: string[] = [];
  await ctx.transaction(async (tx) => {
    const at = ctx.clock.now().toISOString();
    for (const platform of platforms) {
      const old = existing.get(platform);
      if (old) assertEditable((await tx.drafts.get(old.id)) ?? old);
      const parts = withMedia(texts.get(platform) ?? [], old ? old.parts : null);
      if (!old) {
        ids.push(
          await insertDraft(tx, ctx, {
            brandId: brand.id,
            ideaId: idea.id,
            platform,
            parts,
            action: 'generate',
            caller,
          }),
        );
        continue;
      }
      // Compared and set against the version read before the model ran: an edit made meanwhile
      // is a 409, not silently replaced.
      const version = old.current_version + 1;
      await addDraftVersion(tx, {
        draft_id: old.id,
        version,
        parts,
        action: 'generate',
        note: null,
        source: caller.source,
        key_id: caller.keyId ?? null,
        created_at: at,
      });
      await refreshPendingApproval(tx, brand, old, version, parts, at);
      ids.push(old.id);
    }
  });
  const rows = await ctx.stores.drafts.manyById(ids);
  return ids.map((id) => draftView(rows.find((r) => r.id === id) as DraftWithParts));
}

/** A new draft for `platform` written from a source text (repurposing a post). */
export async function draftFromSource(
  ctx: ContentContext,
  input: { brandId: string; ideaId: string | null; platform: Platform; title: string; sourceText: string },
  caller: Caller,
): Promise<DraftView> {
  const brand = await requireBrand(ctx, input.brandId);
  const out = await ctx.model.draft({
    voice: voiceOf(brand.name, memoryOf(brand)),
    platform: input.platform,
    idea: { title: input.title, angle: null, notes: null },
    sourceText: input.sourceText,
  });
  const existing = input.ideaId ? await ctx.stores.drafts.forIdea(input.ideaId, input.platform) : undefined;
  if (existing && existing.status !== 'scheduled' && existing.status !== 'published')
    return addVersion(ctx, existing, withMedia(out.parts, existing.parts), 'generate', 'repurposed', caller);
  const parts = withMedia(out.parts, null);
  checkParts(input.platform, parts);
  const id = await ctx.transaction((tx) =>
    insertDraft(tx, ctx, {
      brandId: brand.id,
      ideaId: existing ? null : input.ideaId,
      platform: input.platform,
      parts,
      action: 'generate',
      caller,
    }),
  );
  return getDraft(ctx, id);
}

export async function rewriteDraft(
  ctx: ContentContext,
  id: string,
  input: { instruction: string },
  caller: Caller,
) {
  const draft = await requireDraft(ctx, id);
  assertEditable(draft);
  const brand = await requireBrand(ctx, draft.brand_id);
  const old = draft.parts;
  const out = await ctx.model.rewrite({
    voice: voiceOf(brand.name, memoryOf(brand)),
    platform: draft.platform,
    parts: old.map((p) => p.text),
    instruction: input.instruction,
    take: draft.current_version,
  });
  return addVersion(ctx, draft, withMedia(out.parts, old), 'rewrite', input.instruction, caller);
}

export async function editDraft(
  ctx: ContentContext,
  id: string,
  input: { parts?: { text: string }[] | undefined; text?: string | undefined; note?: string | undefined },
  caller: Caller,
) {
  const draft = await requireDraft(ctx, id);
  const parts = withMedia(partsFromInput(input), draft.parts);
  return addVersion(ctx, draft, parts, 'edit', input.note ?? null, caller);
}

async function findAsset(ctx: ContentContext, brandId: string, assetId: string): Promise<MediaAsset> {
  let asset: MediaAsset | null = null;
  try {
    asset = await ctx.media.getAsset(brandId, assetId);
  } catch (err) {
    if (!(err instanceof AppError && err.status === 404)) throw err;
  }
  if (!asset || asset.brand_id !== brandId) throw notFound('media asset', assetId);
  return asset;
}

/**
 * `attach_media`: onto the first part, as the platform's preferred crop unless one is named (video
 * and an animated GIF go whole: see MediaService.defaultVariant).
 */
export async function attachMedia(
  ctx: ContentContext,
  id: string,
  input: { asset_id: string; variant?: string | undefined },
  caller: Caller,
) {
  const draft = await requireDraft(ctx, id);
  assertEditable(draft);
  const asset = await findAsset(ctx, draft.brand_id, input.asset_id);
  const { media } = ctx;
  const platform = draft.platform;
  const urlOf = (variant: string) => {
    try {
      return media.variantUrl(asset, variant);
    } catch {
      return null;
    }
  };
  let variant = input.variant ?? media.defaultVariant(asset, platform);
  let url = urlOf(variant);
  // Video has no crops: without a named variant it goes as uploaded.
  if (!url && !input.variant) {
    variant = 'original';
    url = urlOf(variant);
  }
  if (!url)
    throw unprocessable('UNKNOWN_VARIANT', `Asset '${asset.id}' has no '${variant}' variant.`, 'variant');
  const parts = draft.parts;
  const first = parts[0] ?? { text: '', media: [] };
  const others = first.media.filter((m) => m.asset_id !== asset.id);
  if (others.length >= MAX_MEDIA)
    throw unprocessable(
      'TOO_MANY_MEDIA',
      `A post carries at most ${MAX_MEDIA} media; remove one first.`,
      'asset_id',
    );
  const next = [
    { ...first, media: [...others, { asset_id: asset.id, variant, url, kind: String(asset.kind) }] },
    ...parts.slice(1),
  ];
  return addVersion(ctx, draft, next, 'attach_media', `${asset.id} as ${variant}`, caller);
}

export { requireDraft };
