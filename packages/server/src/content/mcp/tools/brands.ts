import { z } from 'zod';
import { PAGE } from '../../domain.js';
import {
  BrandMemory,
  BrandSummary,
  EvidenceKind,
  KnowledgeNote,
  MEMORY_TARGETS,
  MemoryChange,
} from '../../schemas/brands.js';
import { addKnowledge, getBrand, listBrands } from '../../services/brands.js';
import { saveToMemory } from '../../services/memory-save.js';
import { defineTool, Id, plural } from '../tool.js';

const brandId = Id('The brand, e.g. "brd_…" from list_brands.');

export const listBrandsTool = defineTool({
  name: 'list_brands',
  title: 'List brands',
  scope: 'read',
  idempotent: true,
  readsTime: false,
  description:
    'Lists the brands in the workspace (up to 100), each with its id, name and connected channels (platform, handle, and status: `needs_reconnect` means nothing publishes there until the person reconnects the account). Start here: most other tools take a brandId from this list.',
  input: z.strictObject({}),
  output: { brands: z.array(BrandSummary), has_more: z.boolean() },
  async run(ctx) {
    const page = await listBrands(ctx, { limit: PAGE.maxLimit });
    const names = page.items.map(
      (b) =>
        `${b.name} (${b.id}; ${b.channels.map((c) => (c.status === 'needs_reconnect' ? `${c.platform} needs reconnecting in Settings → Channels` : c.platform)).join(', ') || 'no channels'})`,
    );
    return {
      summary: `${plural(page.items.length, 'brand')}${names.length ? `: ${names.join('; ')}` : ''}.`,
      data: { brands: page.items, has_more: page.has_more },
    };
  },
});

export const getBrandMemoryTool = defineTool({
  name: 'get_brand_memory',
  title: 'Get Brand Memory',
  scope: 'read',
  idempotent: true,
  readsTime: false,
  description:
    "Returns a brand's Brand Memory: voice (summary, do and avoid rules, banned words), audiences, products, knowledge notes, style rules and example posts. Read it before writing anything for the brand. Also readable as the resource service://brands/{brandId}/memory.",
  input: z.strictObject({ brandId }),
  output: { brand_id: z.string(), brand_name: z.string(), memory: BrandMemory },
  async run(ctx, args) {
    const brand = await getBrand(ctx, args.brandId);
    const m = brand.memory;
    return {
      summary: `Brand Memory of ${brand.name}: ${plural(m.voice.do.length, 'do rule')}, ${plural(m.voice.avoid.length, 'avoid rule')}, ${plural(m.voice.banned_words.length, 'banned word')}, ${plural(m.knowledge.length, 'knowledge note')}, ${plural(m.example_posts.length, 'example post')}.`,
      data: { brand_id: brand.id, brand_name: brand.name, memory: m },
    };
  },
});

export const addKnowledgeTool = defineTool({
  name: 'add_knowledge',
  title: 'Add a knowledge note',
  scope: 'write',
  description:
    "Adds a knowledge note (title and body) to a brand's Brand Memory, e.g. a product fact, a policy or a customer story that drafts may draw on. Returns the note.",
  input: z.strictObject({
    brandId,
    title: z.string().trim().min(1).max(200).describe('Short title, 1-200 characters.'),
    body: z.string().trim().min(1).max(10_000).describe('The note, 1-10,000 characters.'),
  }),
  output: { brand_id: z.string(), note: KnowledgeNote, knowledge_count: z.number().int() },
  async run(ctx, args, caller) {
    const { note, memory } = await addKnowledge(
      ctx,
      args.brandId,
      { title: args.title, body: args.body },
      caller,
    );
    return {
      summary: `Added knowledge note ${note.id} "${note.title}" to brand ${args.brandId} (${plural(memory.knowledge.length, 'note')} now).`,
      data: { brand_id: args.brandId, note, knowledge_count: memory.knowledge.length },
    };
  },
});

export const saveToMemoryTool = defineTool({
  name: 'save_to_memory',
  title: 'Save to Brand Memory',
  scope: 'write',
  description:
    'Saves a post, reply, reply theme, signal or draft to Brand Memory: as a knowledge note, a verbatim excerpt, an example post, or a do / avoid rule. Rules link back to the source as evidence; saving the same rule again adds evidence instead of a duplicate. Ids: post_… (list_posts), rpl_… and theme_… (get_conversation), sig_… (the signal cited by an idea), drf_… (draft_idea).',
  input: z.strictObject({
    brandId,
    from: z
      .union([
        z.string().trim().min(1).max(100),
        z.strictObject({ kind: EvidenceKind, id: z.string().trim().min(1).max(100) }),
      ])
      .describe(
        'What to save: an id whose prefix names its kind (post_, rpl_, theme_, sig_, drf_), or { kind, id }.',
      ),
    as: z
      .enum(MEMORY_TARGETS)
      .describe(
        'knowledge: a note; excerpt: a quote that must occur in the source; example_post; do / avoid: a voice rule.',
      ),
    text: z
      .string()
      .trim()
      .min(1)
      .max(3000)
      .optional()
      .describe(
        'Replaces the text taken from the source (1-3,000 characters); for an excerpt it must occur in the source.',
      ),
    note: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .describe('Your own words (1-1,000 characters); for a do / avoid rule, the rule itself.'),
    title: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Title of a knowledge note (1-200 characters).'),
  }),
  output: { brand_id: z.string(), change: MemoryChange },
  async run(ctx, args, caller) {
    const { brandId: id, ...input } = args;
    const { change } = await saveToMemory(ctx, id, input, caller);
    const what = change.op === 'add_evidence' ? 'linked new evidence to the existing entry in' : 'saved to';
    return {
      summary: `${what[0]?.toUpperCase()}${what.slice(1)} ${change.target} of brand ${id} (entry ${change.item.id}).`,
      data: { brand_id: id, change },
    };
  },
});
