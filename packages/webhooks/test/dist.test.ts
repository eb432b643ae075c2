import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

// Exercises what npm users get: the built files, loaded the way Node loads them.
type NodeEntry = typeof import('../src/index');
type WebEntry = typeof import('../src/web');

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const files = [
  'index.js',
  'index.cjs',
  'web.js',
  'web.cjs',
  'index.d.ts',
  'index.d.cts',
  'web.d.ts',
  'web.d.cts',
];
const require = createRequire(import.meta.url);

const SECRET = 'whsec_dist';
const T = 1_767_603_600;
const AT_T = { now: new Date(T * 1000) };
const BODY =
  '{"id":"evt_1","type":"webhook.test","created_at":"2026-01-05T09:00:00.000Z","data":{"id":"test_1","message":"héllo ☕"}}';

const built = (file: string) => {
  const path = join(dist, file);
  if (!existsSync(path)) {
    throw new Error(
      `packages/webhooks/dist/${file} is missing. Build first: pnpm --filter @svc/webhooks build (the root \`pnpm test\` does this).`,
    );
  }
  return path;
};

const load = {
  esm: async () => (await import(pathToFileURL(built('index.js')).href)) as NodeEntry,
  cjs: async () => require(built('index.cjs')) as NodeEntry,
  webEsm: async () => (await import(pathToFileURL(built('web.js')).href)) as WebEntry,
  webCjs: async () => require(built('web.cjs')) as WebEntry,
};

describe.each([
  ['ESM', load.esm],
  ['CJS', load.cjs],
])('built %s entry', (_name, entry) => {
  it('signs and verifies with node:crypto and Web Crypto', async () => {
    const lib = await entry();
    const header = lib.signPayload(BODY, SECRET, { timestamp: T });
    lib.verifySignature(Buffer.from(BODY), header, SECRET, AT_T);
    expect(lib.verifyEvent(BODY, header, SECRET, AT_T).type).toBe('webhook.test');
    expect((await lib.verifyEventAsync(BODY, header, SECRET, AT_T)).id).toBe('evt_1');
    expect(() => lib.verifySignature(BODY, header, 'whsec_wrong', AT_T)).toThrow(lib.WebhookSignatureError);
  });
});

describe.each([
  ['ESM', load.webEsm],
  ['CJS', load.webCjs],
])('built %s ./web entry', (_name, entry) => {
  it('verifies with Web Crypto and has no sync API', async () => {
    const web = await entry();
    const header = await web.signPayloadAsync(BODY, SECRET, { timestamp: T });
    await web.verifySignatureAsync(new TextEncoder().encode(BODY), header, SECRET, AT_T);
    expect((await web.verifyEventAsync(BODY, header, SECRET, AT_T)).type).toBe('webhook.test');
    expect(Object.keys(web)).not.toContain('verifySignature');
  });
});

describe('built files', () => {
  it.each(files)('include %s', (file) => {
    expect(existsSync(built(file))).toBe(true);
  });

  it('keep node: builtins out of everything the ./web entries load', () => {
    const reachable = new Set<string>();
    const visit = (file: string) => {
      if (reachable.has(file)) return;
      reachable.add(file);
      const code = readFileSync(built(file), 'utf8');
      for (const [, spec] of code.matchAll(/(?:from\s*|import\s*\(|require\()\s*["'](\.\/[^"']+)["']/g)) {
        if (spec) visit(spec.slice(2));
      }
    };
    visit('web.js');
    visit('web.cjs');
    for (const file of reachable) {
      const code = readFileSync(built(file), 'utf8');
      expect(code, file).not.toMatch(
        /["']node:|require\(["'](crypto|buffer)["']|from ["']crypto["']|\bBuffer\./,
      );
    }
  });

  it('keep the node: prefix on the Node entry so Deno and Workers resolve it', () => {
    expect(readFileSync(built('index.js'), 'utf8')).toContain('"node:crypto"');
    expect(readFileSync(built('index.cjs'), 'utf8')).toContain('require("node:crypto")');
  });

  it('share one error class identity across ESM, CJS and both entries', async () => {
    const [esm, cjs, webCjs] = await Promise.all([load.esm(), load.cjs(), load.webCjs()]);
    const header = esm.signPayload(BODY, SECRET, { timestamp: T });
    const error = (() => {
      try {
        cjs.verifySignature(BODY, header, 'whsec_wrong', AT_T);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(esm.WebhookSignatureError);
    expect(error).toBeInstanceOf(webCjs.WebhookSignatureError);
  });
});
