// Where the contract tests get the platforms' published documents (OpenAPI documents and JSON
// schemas of UCP, ACP, the OpenAI API and the X API), in a clone anywhere.
//
// scripts/platform-specs.json lists every document: its source repository, commit, path there,
// the path it takes here and its sha256. Tests read them only from the cache inside the clone
// (.cache/platform-specs/, gitignored), and only once every file in it matches its sha256. The
// cache is filled from a local mirror laid out like the cache (../shared/platform-specs beside
// the clone, in the workplace where CI has no internet) or, by `pnpm specs:fetch` only, by
// downloading each file from its source at its commit. Tests never download: a run without the
// documents fails with one line naming the command, and never skips the contract tests.
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MANIFEST_FILE = join(ROOT, 'scripts', 'platform-specs.json');
export const FETCH_COMMAND = 'pnpm specs:fetch';
export const RAW_BASE_URL = 'https://raw.githubusercontent.com';

/** A failure said in one line, so a test run or CI log shows the cause and the fix together. */
export class PlatformSpecsError extends Error {
  name = 'PlatformSpecsError';
}

/**
 * The cache and the mirror; SVC_PLATFORM_SPECS_CACHE and SVC_PLATFORM_SPECS_MIRROR move them.
 * The cache folder belongs to this script: files in it that the manifest does not list are removed.
 */
export function defaultLocations(env = process.env) {
  return {
    cache: env.SVC_PLATFORM_SPECS_CACHE || join(ROOT, '.cache', 'platform-specs'),
    mirror: env.SVC_PLATFORM_SPECS_MIRROR || join(ROOT, '..', 'shared', 'platform-specs'),
  };
}

/** The manifest's file list, refusing any path that could leave the cache folder. */
export function readManifest(file = MANIFEST_FILE) {
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  for (const entry of manifest.files) {
    const clean = normalize(entry.path);
    if (isAbsolute(entry.path) || clean.startsWith(`..${sep}`) || clean === '..' || clean !== entry.path)
      throw new PlatformSpecsError(
        `${shown(file)}: path ${JSON.stringify(entry.path)} is not a plain relative path`,
      );
    if (!/^[0-9a-f]{64}$/.test(entry.sha256))
      throw new PlatformSpecsError(`${shown(file)}: ${entry.path} has no sha256 (64 hex digits)`);
  }
  return manifest;
}

/** The URL a file is published at: the raw file at its commit (or tag, where only that is known). */
export function sourceUrl(entry, baseUrl = RAW_BASE_URL) {
  return `${baseUrl}/${entry.repository}/${entry.ref ?? entry.commit}/${entry.source}`;
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * Paths in messages are relative to the repository root where that is shorter to read and
 * unambiguous: inside the clone (`.cache/…`) or in the mirror beside it (`../shared/…`).
 * Anywhere else (a temporary folder beside a clone in /tmp, say) the absolute path is shown,
 * so `../svc-specs-…` never reads as if it were part of the project.
 */
function shown(path) {
  const rel = relative(ROOT, path).split(sep).join('/');
  const nearby = !rel.startsWith('../') || rel.startsWith('../shared/');
  return rel && !isAbsolute(rel) && nearby ? rel : path;
}

/** Write-then-rename, so a test worker reading at the same moment sees the old file or the new one. */
function writeAtomically(file, bytes) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, bytes);
  renameSync(tmp, file);
}

function readIfFile(file) {
  try {
    return statSync(file).isFile() ? readFileSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** Files in the cache that the manifest does not list go: a test that walks a folder loads only verified files. */
function removeUnlisted(cache, listed) {
  if (!existsSync(cache)) return;
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      // A .tmp is another process's write in progress (writeAtomically); tests never load one.
      else if (path.endsWith('.tmp')) continue;
      else if (!listed.has(relative(cache, path).split(sep).join('/'))) rmSync(path, { force: true });
    }
  };
  walk(cache);
}

/**
 * The offline half, synchronous so a test module can call it at import: every file already in
 * the cache with the right hash is kept; a missing or changed one is copied from the mirror
 * (whose copy must match too). Throws a one-line PlatformSpecsError when a file is neither, or
 * returns `{ missing }` instead when `allowMissing` (the fetch command downloads those next).
 */
export function ensurePlatformSpecs(options = {}) {
  const {
    manifest = readManifest(),
    cache,
    mirror,
    allowMissing = false,
  } = { ...defaultLocations(), ...options };
  const missing = [];
  let copied = 0;
  for (const entry of manifest.files) {
    const target = join(cache, entry.path);
    const cached = readIfFile(target);
    if (cached && sha256(cached) === entry.sha256) continue;
    const mirrored = readIfFile(join(mirror, entry.path));
    if (mirrored) {
      if (sha256(mirrored) !== entry.sha256)
        throw new PlatformSpecsError(
          `${shown(join(mirror, entry.path))} does not match its sha256 in scripts/platform-specs.json: restore the published file (${sourceUrl(entry)}), or update the manifest if the document was replaced on purpose`,
        );
      writeAtomically(target, mirrored);
      copied += 1;
    } else if (cached && !allowMissing) {
      throw new PlatformSpecsError(
        `${shown(target)} does not match its sha256 in scripts/platform-specs.json: run \`${FETCH_COMMAND}\` to fetch it again`,
      );
    } else missing.push(entry);
  }
  removeUnlisted(cache, new Set(manifest.files.map((f) => f.path)));
  if (missing.length && !allowMissing)
    throw new PlatformSpecsError(
      `The contract tests need the platforms' published documents, and ${missing.length} of ${manifest.files.length} are not in ${shown(cache)} (no mirror at ${shown(mirror)}): run \`${FETCH_COMMAND}\` to download and verify them`,
    );
  return { copied, missing, total: manifest.files.length };
}

/**
 * `pnpm specs:fetch`: the offline half first, then each file still missing downloaded from its
 * source, checked against its sha256 before it is written into the cache.
 */
export async function fetchPlatformSpecs(options = {}) {
  const {
    manifest = readManifest(),
    cache,
    mirror,
    baseUrl = RAW_BASE_URL,
    timeoutMs = 60_000,
  } = { ...defaultLocations(), ...options };
  const { copied, missing, total } = ensurePlatformSpecs({ manifest, cache, mirror, allowMissing: true });
  let downloaded = 0;
  const queue = [...missing];
  const worker = async () => {
    for (let entry = queue.shift(); entry; entry = queue.shift()) {
      const url = sourceUrl(entry, baseUrl);
      let bytes;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        bytes = Buffer.from(await res.arrayBuffer());
      } catch (err) {
        const cause = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err);
        throw new PlatformSpecsError(
          `Could not download ${entry.path} from ${url} (${cause}), and there is no mirror at ${shown(mirror)}: connect to the internet, or copy the documents there, then run \`${FETCH_COMMAND}\` again`,
        );
      }
      if (sha256(bytes) !== entry.sha256)
        throw new PlatformSpecsError(
          `${url} does not match the sha256 of ${entry.path} in scripts/platform-specs.json: the published file changed; nothing was written for it`,
        );
      writeAtomically(join(cache, entry.path), bytes);
      downloaded += 1;
    }
  };
  // A few at a time: 92 small files, one of them 2 MB.
  await Promise.all(Array.from({ length: Math.min(6, queue.length) }, worker));
  return { copied, downloaded, total };
}
