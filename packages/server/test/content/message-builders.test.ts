// The message builders, unit by unit: sentence endings, the idea shortfall wording, and the MCP
// layer's renaming of service field names to each tool's argument names, for every tool.
import { describe, expect, it } from 'vitest';
import { inToolTerms } from '../../src/content/mcp/call-tool.js';
import { TOOLS } from '../../src/content/mcp/tools/index.js';
import { ideaShortfallMessage } from '../../src/content/services/ideas.js';
import { sentence } from '../../src/content/text.js';

const DOUBLED = /\.\.|[?!:;,]\.(?=\s|$)/;

describe('sentence', () => {
  it.each([
    ['Saved', 'Saved.'],
    ['Saved.', 'Saved.'],
    ['Why not?', 'Why not?'],
    ['Go!', 'Go!'],
    ['And so on…', 'And so on…'],
    ['He said "why?"', 'He said "why?"'],
    ['Uses banned words: etc.', 'Uses banned words: etc.'],
    ['Trailing space. ', 'Trailing space.'],
  ])('%j → %j', (input, out) => {
    expect(sentence(input)).toBe(out);
    expect(sentence(input)).not.toMatch(DOUBLED);
  });
});

describe('ideaShortfallMessage', () => {
  it('reads as whole sentences for none, some, one and many signals', () => {
    for (const [made, signals] of [
      [0, 1],
      [0, 4],
      [2, 1],
      [1, 3],
    ] as const) {
      const m = ideaShortfallMessage('brd_1', made, 3, signals);
      expect(m).not.toMatch(DOUBLED);
      expect(m).toMatch(/\.$/);
      expect(m).toContain('POST /v1/brands/brd_1/signals');
      expect(m).toContain(signals === 1 ? '1 signal from' : `${signals} signals from`);
    }
  });
});

describe('inToolTerms', () => {
  const camel = TOOLS.flatMap((t) =>
    Object.keys(t.input.shape)
      .filter((k) => /[A-Z]/.test(k))
      .map((k) => ({ tool: t, name: k, snake: k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`) })),
  );

  it('covers the camelCase arguments of the tools', () => {
    expect(camel.map((c) => c.name)).toEqual(expect.arrayContaining(['brandId', 'draftId', 'proposedFor']));
  });

  it('renames every quoted service field name to the argument the tool takes, for every tool', () => {
    for (const { tool, name, snake } of camel) {
      expect(inToolTerms(tool, `'${snake}' (2001-01-01T00:00:00.000Z) is not in the future.`)).toBe(
        `'${name}' (2001-01-01T00:00:00.000Z) is not in the future.`,
      );
      expect(inToolTerms(tool, `'${snake}.0.text' is too long.`)).toBe(`'${name}.0.text' is too long.`);
    }
  });

  it('leaves ids, other fields and unquoted words alone', () => {
    const propose = TOOLS.find((t) => t.name === 'propose_post');
    if (!propose) throw new Error('propose_post missing');
    const m = "No draft with id 'drf_proposed_for'. 'channel_id' and proposed_for stay.";
    expect(inToolTerms(propose, m)).toBe(m);
  });
});
