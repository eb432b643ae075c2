import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every statement in the stores runs unchanged on SQLite and PostgreSQL, so the constructs only
 * SQLite understands (or understands differently) must not come back. Migrations are left out:
 * an old SQLite migration's own backfill may use SQLite's functions, and each has a separate
 * PostgreSQL step.
 */
const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

const FORBIDDEN: { name: string; pattern: RegExp; instead: string }[] = [
  { name: 'INSERT OR IGNORE', pattern: /\bOR\s+IGNORE\b/i, instead: 'INSERT … ON CONFLICT DO NOTHING' },
  { name: 'INSERT OR REPLACE', pattern: /\bOR\s+REPLACE\b/i, instead: 'INSERT … ON CONFLICT (…) DO UPDATE' },
  { name: 'rowid', pattern: /\b_?rowid_?\b|\boid\b/i, instead: 'an explicit ordering column (seq)' },
  {
    // SQLite's JSON1 names only: a PostgreSQL-only statement (json_agg, jsonb_to_recordset, in
    // a store's PostgreSQL branch) is not something SQLite would half-understand.
    name: 'JSON1 function',
    pattern:
      /\bjson(_(array|array_length|extract|insert|object|patch|remove|replace|set|type|valid|quote|group_array|group_object|each|tree|error_position|pretty))?\s*\(/i,
    instead: 'a table, or decoding in the store',
  },
  { name: '@named parameter', pattern: /(^|[\s=(,])[@$:][a-z_]\w*/i, instead: '? placeholders' },
  {
    name: 'datetime()',
    pattern: /\bdatetime\s*\(/i,
    instead: 'an ISO-8601 string computed from the injected clock',
  },
  {
    name: 'strftime()',
    pattern: /\bstrftime\s*\(/i,
    instead: 'an ISO-8601 string computed from the injected clock',
  },
  { name: 'ifnull()', pattern: /\bifnull\s*\(/i, instead: 'COALESCE()' },
  { name: 'group_concat()', pattern: /\bgroup_concat\s*\(/i, instead: 'a plain query, joined in the store' },
  { name: 'instr()', pattern: /\binstr\s*\(/i, instead: 'LIKE with an ESCAPE clause' },
  { name: 'printf()', pattern: /\bprintf\s*\(/i, instead: 'formatting in the store' },
  { name: 'LIMIT -1', pattern: /\bLIMIT\s+-1\b/i, instead: 'no LIMIT' },
];

/** Store sources: `*-store.ts`, `store.ts`, `stores.ts` and whatever sits in a `stores/` folder. */
function storeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' ? [] : storeFiles(path);
    const isStore = /(^|-)stores?\.ts$/.test(e.name) || /[/\\]stores[/\\]/.test(path);
    return isStore && e.name.endsWith('.ts') ? [path] : [];
  });
}

/** Comment lines say why, and may name what they replaced; only code is checked. */
const isComment = (line: string) => /^\s*(\/\/|\/?\*)/.test(line);

function findNonPortableSql(files: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (isComment(line) || /^\s*import\b/.test(line)) return;
      for (const f of FORBIDDEN) {
        if (f.pattern.test(line)) {
          found.push(`${relative(SRC, file)}:${i + 1}: ${f.name} (use ${f.instead}): ${line.trim()}`);
        }
      }
    });
  }
  return found;
}

describe('portable SQL in the stores', () => {
  const files = storeFiles(SRC);

  it('finds the store sources it checks', () => {
    const names = files.map((f) => relative(SRC, f).replaceAll('\\', '/'));
    expect(names).toEqual(
      expect.arrayContaining([
        'content/media/store.ts',
        'content/db/stores/posts-store.ts',
        'commerce/db/checkouts-store.ts',
        'commerce/db/webhooks-store.ts',
        'platform/db/idempotency-store.ts',
      ]),
    );
  });

  it('uses no construct that only SQLite understands', () => {
    expect(findNonPortableSql(files)).toEqual([]);
  });
});
