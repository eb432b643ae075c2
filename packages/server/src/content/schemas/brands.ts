import { z } from 'zod';
import { named } from '../schemas.js';
import { MEMORY_LIMITS } from '../services/memory-limits.js';
import { isTimeZone } from '../time-zones.js';
import { Id, Platform, Text, Timestamp } from './common.js';

export const EVIDENCE_KINDS = ['post', 'reply', 'reply_theme', 'signal', 'draft'] as const;
export const EvidenceKind = named('MemorySourceKind', z.enum(EVIDENCE_KINDS));

export const Evidence = named(
  'MemoryEvidence',
  z.object({
    kind: EvidenceKind,
    id: z.string(),
    excerpt: z.string().nullable(),
    url: z.string().nullable(),
  }),
  'A link from a Brand Memory entry back to what it was saved from.',
);

export const MemoryRule = named(
  'MemoryRule',
  z.object({ id: z.string(), text: z.string(), evidence: z.array(Evidence), created_at: Timestamp }),
);
export const KnowledgeNote = named(
  'KnowledgeNote',
  z.object({
    id: z.string(),
    kind: z.enum(['note', 'excerpt']).describe('An excerpt quotes its source verbatim.'),
    title: z.string(),
    body: z.string(),
    source: Evidence.nullable(),
    created_at: Timestamp,
  }),
);
export const Audience = named(
  'Audience',
  z.object({ id: z.string(), name: z.string(), description: z.string() }),
);
export const Product = named(
  'Product',
  z.object({ id: z.string(), name: z.string(), description: z.string(), url: z.string().nullable() }),
);
export const ExamplePost = named(
  'ExamplePost',
  z.object({
    id: z.string(),
    platform: Platform.nullable(),
    text: z.string(),
    source: Evidence.nullable(),
    created_at: Timestamp,
  }),
);

export const BrandMemory = named(
  'BrandMemory',
  z.object({
    voice: z.object({
      summary: z.string(),
      do: z.array(MemoryRule),
      avoid: z.array(MemoryRule),
      banned_words: z.array(z.string()),
    }),
    audiences: z.array(Audience),
    products: z.array(Product),
    knowledge: z.array(KnowledgeNote),
    style_rules: z.array(MemoryRule),
    example_posts: z.array(ExamplePost),
  }),
);
export type BrandMemory = z.output<typeof BrandMemory>;
export type MemoryRule = z.output<typeof MemoryRule>;
export type Evidence = z.output<typeof Evidence>;

export const ChannelSummary = named(
  'ChannelSummary',
  z.object({
    id: z.string(),
    platform: Platform,
    handle: z.string(),
    kind: z.enum(['sandbox', 'live']),
    status: z
      .enum(['connected', 'needs_reconnect'])
      .describe('`needs_reconnect`: nothing publishes on it until the person connects the account again.'),
  }),
);

export const BrandSummary = named(
  'BrandSummary',
  z.object({
    id: z.string(),
    name: z.string(),
    time_zone: z
      .string()
      .describe(
        "The brand's time zone, an IANA name (`UTC` for brands made before there was one). The app shows and picks the brand's times in it; the API keeps ISO instants.",
      ),
    channels: z
      .array(ChannelSummary)
      .describe('Connected channels, and those waiting for the person to reconnect them.'),
    created_at: Timestamp,
    updated_at: Timestamp,
  }),
);
export const Brand = named('Brand', BrandSummary.extend({ memory: BrandMemory }));
export type BrandView = z.output<typeof Brand>;
export type BrandSummaryView = z.output<typeof BrandSummary>;

const ruleList = z.array(Text(500)).max(MEMORY_LIMITS.rules);

/**
 * A product's link is shown to people as a link and copied by agents into posts, so it must be a
 * web address: a `javascript:` or `data:` URL there would run in whoever opens it, and `file:` or
 * `ftp:` lead nowhere a reader can follow.
 */
const ProductUrl = z
  .url({
    protocol: /^https?$/,
    error: 'must be a web address starting with http:// or https:// (e.g. https://example.com/product)',
  })
  .max(2000)
  .describe(
    'A web address: `http://` or `https://` only; anything else (`javascript:`, `data:`) is refused.',
  );

/** Every list given replaces the stored list; rules whose text is unchanged keep their id and evidence. */
export const MemoryInput = named(
  'BrandMemoryInput',
  z.strictObject({
    voice: z
      .strictObject({
        summary: z.string().trim().max(2000).optional(),
        do: ruleList.optional(),
        avoid: ruleList.optional(),
        banned_words: z.array(Text(60)).max(MEMORY_LIMITS.banned_words).optional(),
      })
      .optional(),
    audiences: z
      .array(z.strictObject({ name: Text(120), description: z.string().trim().max(1000).default('') }))
      .max(MEMORY_LIMITS.audiences)
      .optional(),
    products: z
      .array(
        z.strictObject({
          name: Text(120),
          description: z.string().trim().max(1000).default(''),
          url: ProductUrl.nullable().optional(),
        }),
      )
      .max(MEMORY_LIMITS.products)
      .optional(),
    knowledge: z
      .array(z.strictObject({ title: Text(200), body: Text(10_000) }))
      .max(MEMORY_LIMITS.knowledge)
      .optional(),
    style_rules: ruleList.optional(),
    example_posts: z
      .array(z.strictObject({ platform: Platform.nullable().optional(), text: Text(3000) }))
      .max(MEMORY_LIMITS.example_posts)
      .optional(),
  }),
);
export type MemoryInput = z.output<typeof MemoryInput>;

const TimeZoneInput = z
  .string()
  .trim()
  .max(64)
  .refine(isTimeZone, {
    error: 'must be an IANA time zone name, such as Europe/Berlin, America/New_York or UTC',
  })
  .describe('An IANA time zone name (`Europe/Berlin`, `Asia/Tokyo`, `UTC`); stored as ICU spells it.');

export const CreateBrandBody = z.strictObject({
  name: Text(120),
  time_zone: TimeZoneInput.optional().describe('Defaults to `UTC`. The app sends the browser’s zone.'),
  memory: MemoryInput.optional(),
});
export const PatchBrandBody = z.strictObject({
  name: Text(120).optional(),
  time_zone: TimeZoneInput.optional(),
  memory: MemoryInput.optional(),
});

export const MEMORY_TARGETS = ['knowledge', 'excerpt', 'example_post', 'do', 'avoid'] as const;
export const SourceRef = z.strictObject({ kind: EvidenceKind, id: Id });

export const MemorySaveBody = named(
  'MemorySaveInput',
  z.strictObject({
    from: z
      .union([SourceRef, Id])
      .describe(
        'What to save: `{ kind, id }`, or just the id (its prefix names the kind: post_, rpl_, theme_, sig_, drf_).',
      ),
    as: z.enum(MEMORY_TARGETS),
    text: z
      .string()
      .trim()
      .min(1)
      .max(3000)
      .optional()
      .describe('Overrides the text taken from the source; for an excerpt it must occur in the source.'),
    note: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .describe('Your own words; for a rule, the rule itself.'),
    title: z.string().trim().min(1).max(200).optional(),
  }),
);
export type MemorySaveInput = z.output<typeof MemorySaveBody>;

export const MemoryChange = named(
  'MemoryChange',
  z.object({
    op: z
      .enum(['add', 'add_evidence'])
      .describe('add_evidence: the same rule exists; the source is linked to it.'),
    target: z.enum(['knowledge', 'voice.do', 'voice.avoid', 'example_posts']),
    item: z.union([KnowledgeNote, MemoryRule, ExamplePost]),
  }),
);
export const MemorySaveResult = named(
  'MemorySaveResult',
  z.object({ saved: z.boolean(), change: MemoryChange, memory: BrandMemory }),
);

export const AddKnowledgeBody = z.strictObject({ title: Text(200), body: Text(10_000) });
