import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ensurePlatformSpecs,
  fetchPlatformSpecs,
  PlatformSpecsError,
  ROOT,
  readManifest,
  sourceUrl,
} from '../platform-specs.mjs';

// The resolver over a small manifest of its own (two documents of one publisher), in a temporary
// folder: the mirror, the cache and, for downloads, a loopback server standing in for
// raw.githubusercontent.com. Nothing here touches the network or the repository's own cache.
const DOCS = {
  'pub-1/openapi.json': '{"openapi":"3.1.0","components":{"schemas":{}}}\n',
  'pub-1/LICENSE': 'MIT License\n',
};
const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const manifest = {
  files: Object.entries(DOCS).map(([path, text]) => ({
    path,
    repository: 'publisher/spec',
    commit: 'a'.repeat(40),
    source: path === 'pub-1/LICENSE' ? 'LICENSE' : 'spec/openapi.json',
    sha256: sha256(text),
  })),
};

let dir;
let mirror;
let cache;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-specs-'));
  mirror = join(dir, 'shared', 'platform-specs');
  cache = join(dir, 'clone', '.cache', 'platform-specs');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function writeMirror(docs = DOCS) {
  for (const [path, text] of Object.entries(docs)) {
    mkdirSync(join(mirror, path, '..'), { recursive: true });
    writeFileSync(join(mirror, path), text);
  }
}
const cached = (path) => readFileSync(join(cache, path), 'utf8');
const oneLine = (err) => {
  expect(err).toBeInstanceOf(PlatformSpecsError);
  expect(err.message).not.toContain('\n');
  return err.message;
};
const thrown = (fn) => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a PlatformSpecsError');
};

describe('with the mirror present', () => {
  it('fills the cache from it, verified, and leaves a verified cache alone the second time', () => {
    writeMirror();
    expect(ensurePlatformSpecs({ manifest, cache, mirror })).toMatchObject({ copied: 2, missing: [] });
    for (const [path, text] of Object.entries(DOCS)) expect(cached(path)).toBe(text);
    expect(ensurePlatformSpecs({ manifest, cache, mirror })).toMatchObject({ copied: 0 });
  });

  it('refuses a mirror file that differs from the manifest, naming it, and writes nothing for it', () => {
    writeMirror({ ...DOCS, 'pub-1/openapi.json': '{"openapi":"3.1.0","tampered":true}\n' });
    const message = oneLine(thrown(() => ensurePlatformSpecs({ manifest, cache, mirror })));
    expect(message).toContain(`${mirror}/pub-1/openapi.json does not match its sha256`);
    expect(existsSync(join(cache, 'pub-1/openapi.json'))).toBe(false);
  });

  it('replaces a changed cache file with the mirror copy', () => {
    writeMirror();
    ensurePlatformSpecs({ manifest, cache, mirror });
    writeFileSync(join(cache, 'pub-1/openapi.json'), '{}');
    expect(ensurePlatformSpecs({ manifest, cache, mirror })).toMatchObject({ copied: 1 });
    expect(cached('pub-1/openapi.json')).toBe(DOCS['pub-1/openapi.json']);
  });

  it('removes a file the manifest does not list, so a test walking a folder loads only verified files', () => {
    writeMirror();
    mkdirSync(join(cache, 'pub-1'), { recursive: true });
    writeFileSync(join(cache, 'pub-1/extra.json'), '{}');
    ensurePlatformSpecs({ manifest, cache, mirror });
    expect(existsSync(join(cache, 'pub-1/extra.json'))).toBe(false);
  });
});

describe('with the mirror absent', () => {
  it('uses a verified cache as it is, offline', () => {
    writeMirror();
    ensurePlatformSpecs({ manifest, cache, mirror });
    rmSync(mirror, { recursive: true });
    expect(ensurePlatformSpecs({ manifest, cache, mirror })).toMatchObject({ copied: 0, missing: [] });
  });

  it('fails on a changed cache file with one line naming the file and the command', () => {
    writeMirror();
    ensurePlatformSpecs({ manifest, cache, mirror });
    rmSync(mirror, { recursive: true });
    writeFileSync(join(cache, 'pub-1/openapi.json'), '{"openapi":"3.1.0","tampered":true}\n');
    const message = oneLine(thrown(() => ensurePlatformSpecs({ manifest, cache, mirror })));
    expect(message).toBe(
      `${cache}/pub-1/openapi.json does not match its sha256 in scripts/platform-specs.json: run \`pnpm specs:fetch\` to fetch it again`,
    );
  });

  it('with no cache either, fails with one line that names the command', () => {
    const message = oneLine(thrown(() => ensurePlatformSpecs({ manifest, cache, mirror })));
    expect(message).toContain('2 of 2 are not in');
    expect(message).toContain('run `pnpm specs:fetch`');
  });
});

describe('pnpm specs:fetch with the mirror absent: downloads from the source at its commit', () => {
  let server;
  let baseUrl;
  let served;
  const requested = [];
  beforeEach(async () => {
    served = { ...DOCS };
    requested.length = 0;
    server = createServer((req, res) => {
      requested.push(req.url);
      const entry = manifest.files.find((f) => `/${f.repository}/${f.commit}/${f.source}` === req.url);
      if (!entry) return res.writeHead(404).end('404: Not Found');
      res.writeHead(200, { 'content-type': 'text/plain' }).end(served[entry.path]);
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${server.address().port}`;
  });
  afterEach(() => new Promise((resolve) => server.close(resolve)));

  it('downloads each missing file from <repository>/<commit>/<path>, verifies it, and fills the cache', async () => {
    expect(await fetchPlatformSpecs({ manifest, cache, mirror, baseUrl })).toEqual({
      copied: 0,
      downloaded: 2,
      total: 2,
    });
    expect(requested.sort()).toEqual([
      `/publisher/spec/${'a'.repeat(40)}/LICENSE`,
      `/publisher/spec/${'a'.repeat(40)}/spec/openapi.json`,
    ]);
    for (const [path, text] of Object.entries(DOCS)) expect(cached(path)).toBe(text);
    // Now the run needs no network.
    expect(ensurePlatformSpecs({ manifest, cache, mirror })).toMatchObject({ missing: [] });
  });

  it('refuses a download that differs from the manifest, naming the file, and writes nothing for it', async () => {
    served['pub-1/openapi.json'] = '{"openapi":"3.1.0","tampered":true}\n';
    const err = await fetchPlatformSpecs({ manifest, cache, mirror, baseUrl }).catch((e) => e);
    expect(oneLine(err)).toContain('does not match the sha256 of pub-1/openapi.json');
    expect(existsSync(join(cache, 'pub-1/openapi.json'))).toBe(false);
  });

  it('without a network either, fails with one line naming the file, the URL and the command', async () => {
    await new Promise((resolve) => server.close(resolve));
    server = createServer();
    server.listen(0);
    const err = await fetchPlatformSpecs({ manifest, cache, mirror, baseUrl }).catch((e) => e);
    const message = oneLine(err);
    expect(message).toMatch(
      /^Could not download pub-1\/(openapi\.json|LICENSE) from http:\/\/127\.0\.0\.1:\d+\/publisher/,
    );
    expect(message).toContain('ECONNREFUSED');
    expect(message).toContain('`pnpm specs:fetch`');
  });
});

describe('the test run without the documents', () => {
  it('stops before any test file loads, on one line that names the command', async () => {
    // A throwaway vitest project using the server package's globalSetup, pointed at an empty
    // cache and a missing mirror: what a clone without ../shared sees on its first `vitest run`.
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'never.test.mjs'),
      "import { it } from 'vitest';\nit('never runs', () => {});\n",
    );
    const setup = join(ROOT, 'packages/server/test/fakes/platform-specs-setup.ts');
    writeFileSync(
      join(project, 'vitest.config.mjs'),
      `export default { test: { include: ['*.test.mjs'], globalSetup: [${JSON.stringify(setup)}] } };\n`,
    );
    const run = promisify(execFile);
    const err = await run(join(ROOT, 'node_modules/.bin/vitest'), ['run', '--root', project], {
      cwd: project,
      env: {
        ...process.env,
        SVC_PLATFORM_SPECS_CACHE: cache,
        SVC_PLATFORM_SPECS_MIRROR: mirror,
        NO_COLOR: '1',
      },
    }).catch((e) => e);
    expect(err.code).toBe(1);
    const lines = err.stderr.split('\n').filter((l) => l.trim() && !/experimental|SemVer/.test(l));
    expect(lines).toEqual([
      `The contract tests need the platforms' published documents, and 92 of 92 are not in ${cache} (no mirror at ${mirror}): run \`pnpm specs:fetch\` to download and verify them`,
    ]);
    expect(err.stdout).not.toContain('never runs');
  });
});

describe('the repository manifest', () => {
  const real = readManifest();
  it('lists the four publishers, licences included, each file with its source at a pinned commit', () => {
    const folders = new Set(real.files.map((f) => f.path.split('/')[0]));
    expect([...folders].sort()).toEqual(['acp-2026-04-17', 'openai', 'ucp-2026-04-08', 'x-api-v2']);
    for (const folder of folders) expect(real.files.map((f) => f.path)).toContain(`${folder}/LICENSE`);
    for (const f of real.files) {
      expect(f.repository).toMatch(/^[\w.-]+\/[\w.-]+$/);
      // UCP is fetched by its release tag: the full id of its commit (bb409d7…) is not recorded yet.
      expect(f.commit).toMatch(f.ref ? /^[0-9a-f]{7,40}$/ : /^[0-9a-f]{40}$/);
      expect(sourceUrl(f)).toMatch(/^https:\/\/raw\.githubusercontent\.com\/[\w.-]+\/[\w.-]+\/[\w.-]+\/\S+$/);
    }
  });
});
