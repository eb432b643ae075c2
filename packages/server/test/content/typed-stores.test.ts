import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Content's stores hand services typed records: unions checked and JSON decoded at the store's
 * boundary (`src/content/db/stores/decode.ts`). So a service that parses a column or casts one to
 * a union is reading around the store; this names the file and line if one comes back.
 */
const SERVICES = fileURLToPath(new URL('../../src/content/services/', import.meta.url));

/** The unions of `domain.ts` (and the literal unions stores use) that a cast would pretend to check. */
const UNIONS =
  'Platform|PostStatus|DraftStatus|ApprovalStatus|IdeaStatus|RunStatus|ProposalStatus|SignalKind|ReplyTheme|AgentId|EventName|CallerSource|ChannelKind|ChannelStatus|FireOutcome|Verdict';

const FORBIDDEN: { name: string; pattern: RegExp; instead: string }[] = [
  { name: 'fromJson', pattern: /\bfromJson\b/, instead: 'a JSON column decoded by its store' },
  { name: 'JSON.parse', pattern: /\bJSON\.parse\s*\(/, instead: 'a JSON column decoded by its store' },
  {
    name: 'cast to a union',
    pattern: new RegExp(`\\bas\\s+(${UNIONS})\\b`),
    instead: 'a store record typed with the union (oneOf in decode.ts)',
  },
  {
    name: 'cast to a literal union',
    pattern: /\bas\s+'[^']*'\s*\|/,
    instead: 'a store record typed with the union (oneOf in decode.ts)',
  },
];

const isComment = (line: string) => /^\s*(\/\/|\/?\*)/.test(line);

function findUntypedReads(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (isComment(line)) return;
        for (const f of FORBIDDEN)
          if (f.pattern.test(line))
            found.push(`${relative(SERVICES, file)}:${i + 1}: ${f.name} (use ${f.instead}): ${line.trim()}`);
      });
  }
  return found;
}

describe('typed store records in content services', () => {
  const files = readdirSync(SERVICES)
    .filter((n) => n.endsWith('.ts'))
    .map((n) => join(SERVICES, n));

  it('reads the service sources', () => {
    expect(files.map((f) => relative(SERVICES, f))).toEqual(
      expect.arrayContaining(['posts.ts', 'drafts.ts', 'approvals.ts', 'automations.ts']),
    );
  });

  it('catches the reads it forbids (so the check below can fail)', () => {
    const samples = [
      'const parts = fromJson<StoredPart[]>(post.parts);',
      'const x = JSON.parse(row.inputs);',
      'platform: draft.platform as Platform,',
      "kind: c.kind as 'sandbox' | 'live',",
    ];
    for (const s of samples)
      expect(
        FORBIDDEN.some((f) => f.pattern.test(s)),
        s,
      ).toBe(true);
    expect(FORBIDDEN.some((f) => f.pattern.test("const ids = ['a', 'b'] as const;"))).toBe(false);
  });

  it('parses no column and casts none to a union: the stores do that', () => {
    expect(findUntypedReads(files)).toEqual([]);
  });
});
