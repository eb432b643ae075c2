import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import GithubSlugger from 'github-slugger';
import { describe, expect, it } from 'vitest';

// Every relative link and `#anchor` in the repository's markdown must lead somewhere: a reader
// who follows "see Troubleshooting" to an anchor that was renamed lands at the top of a long page
// with no hint where to look. Anchors are GitHub's (github-slugger, the slugs GitHub renders), so
// a link that passes here works on GitHub and in editors that follow GitHub's rule.

const root = resolve(import.meta.dirname, '../..');

/** Tracked markdown, less the changesets (release notes, consumed and deleted on release). */
const markdownFiles = execFileSync('git', ['ls-files', '*.md'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && !f.startsWith('.changeset/'));

/** Code blanked out (a `[x](y)` in code is not a link), its line breaks kept for line numbers. */
const onlyBreaks = (code) => code.replace(/[^\n]/g, '');
const withoutFences = (text) =>
  text.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, onlyBreaks);
const prose = (text) => withoutFences(text).replace(/(`+)[\s\S]*?\1/g, onlyBreaks);

/** The text a heading renders to: link text kept, images and HTML tags dropped. */
const headingText = (raw) =>
  raw
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/\s+#+\s*$/, '')
    .trim();

const anchorCache = new Map();

/** The anchors a markdown file offers: one per heading (GitHub numbers repeats) and any `id=`. */
function anchorsOf(file) {
  let anchors = anchorCache.get(file);
  if (anchors) return anchors;
  const text = readFileSync(join(root, file), 'utf8');
  const slugger = new GithubSlugger();
  anchors = new Set();
  for (const [, heading] of withoutFences(text).matchAll(/^ {0,3}#{1,6}[ \t]+(.+)$/gm)) {
    anchors.add(slugger.slug(headingText(heading)));
  }
  for (const [, id] of text.matchAll(/<a\s[^>]*(?:id|name)="([^"]+)"/g)) anchors.add(id);
  anchorCache.set(file, anchors);
  return anchors;
}

/** Each `[text](target)`, `[label]: target` and HTML `href`/`src` in a file's prose, with its line. */
function linksOf(file) {
  const text = prose(readFileSync(join(root, file), 'utf8'));
  const links = [];
  const patterns = [
    /\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
    /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm,
    /<(?:a|img)\s[^>]*?(?:href|src)="([^"]+)"/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) {
      const line = text.slice(0, match.index).split('\n').length;
      links.push({ target: match[1], line });
    }
  }
  return links;
}

/** Why a link from `file` to `target` leads nowhere, or null when it resolves. */
function brokenReason(file, target) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return null; // https:, mailto:
  const hashAt = target.indexOf('#');
  const pathPart = decodeURI(hashAt === -1 ? target : target.slice(0, hashAt));
  const anchor = hashAt === -1 ? null : decodeURIComponent(target.slice(hashAt + 1));
  const to = pathPart === '' ? file : relative(root, resolve(root, dirname(file), pathPart.split('?')[0]));
  if (to.startsWith('..')) return `points outside the repository (${to})`;
  if (!existsSync(join(root, to))) return `no file ${to}`;
  if (anchor === null || anchor === '') return null;
  if (!to.endsWith('.md') || statSync(join(root, to)).isDirectory()) return null; // a line anchor in code
  return anchorsOf(to).has(anchor) ? null : `no heading in ${to} makes the anchor #${anchor}`;
}

describe('links in the markdown', () => {
  it('finds the markdown it checks, and the links in it of each kind', () => {
    expect(markdownFiles).toContain('docs/troubleshooting.md');
    expect(markdownFiles).toContain('README.md');
    const targets = (file) => linksOf(file).map((l) => l.target);
    expect(targets('docs/troubleshooting.md')).toContain('operations.md#memory');
    expect(targets('docs/troubleshooting.md')).toContain('#more-memory-than-documented');
    expect(targets('docs/content/app.md')).toContain('../screenshots/approvals-390.png');
  });

  it('makes GitHub anchors from headings with code, links and repeats', () => {
    const slugger = new GithubSlugger();
    expect(slugger.slug(headingText('`svc-server start` exits 64'))).toBe('svc-server-start-exits-64');
    expect(slugger.slug(headingText('See [the spec](x.md), then go'))).toBe('see-the-spec-then-go');
    expect(slugger.slug(headingText('See [the spec](x.md), then go'))).toBe('see-the-spec-then-go-1');
  });

  it('every relative link and #anchor resolves', () => {
    const broken = [];
    for (const file of markdownFiles) {
      for (const { target, line } of linksOf(file)) {
        const reason = brokenReason(file, target);
        if (reason) broken.push(`${file}:${line} → ${target}: ${reason}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
