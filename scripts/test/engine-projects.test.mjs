// The PostgreSQL pass of `npm test` runs the projects in ENGINE_PROJECTS; a test that starts a
// server in any other project would silently run on SQLite only. This finds them.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_PROJECTS, postgresProjects, splitProjectFilters } from '../engine-projects.mjs';

const root = join(import.meta.dirname, '..', '..');
const startsAServer = /\b(createContentApp|createCommerceApp|startServices|startServer)\(|dist\/cli\.js/;

/** Each project folder's vitest name and the test sources under its test/ folder. */
function projects() {
  return ['packages', 'examples'].flatMap((group) =>
    readdirSync(join(root, group))
      .map((dir) => join(root, group, dir))
      .filter((dir) => existsSync(join(dir, 'vitest.config.ts')))
      .map((dir) => {
        const name = readFileSync(join(dir, 'vitest.config.ts'), 'utf8').match(/name: '([^']+)'/)?.[1];
        const testDir = join(dir, 'test');
        const files = existsSync(testDir)
          ? readdirSync(testDir, { recursive: true })
              .map(String)
              .filter((f) => /\.(ts|mjs)$/.test(f))
              .map((f) => join(testDir, f))
          : [];
        return { dir, name, files };
      }),
  );
}

describe('the projects run on PostgreSQL too', () => {
  it('include every project whose tests start a server', () => {
    const missing = projects()
      .filter((p) => p.files.some((f) => startsAServer.test(readFileSync(f, 'utf8'))))
      .map((p) => p.name)
      .filter((name) => !ENGINE_PROJECTS.includes(name));
    expect(missing, 'add these to ENGINE_PROJECTS in scripts/engine-projects.mjs').toEqual([]);
  });

  it('name projects that exist', () => {
    const names = projects().map((p) => p.name);
    expect(ENGINE_PROJECTS.filter((name) => !names.includes(name))).toEqual([]);
  });

  it('put each server outside the server package on the test engine', () => {
    const offEngine = projects()
      .filter((p) => !p.dir.endsWith(join('packages', 'server')))
      .flatMap((p) => p.files)
      .filter((f) =>
        /\b(createContentApp|createCommerceApp)\(|dist\/cli\.js'\), 'start'/.test(readFileSync(f, 'utf8')),
      )
      .filter((f) => !readFileSync(f, 'utf8').includes('createTestEngineDatabase('));
    expect(offEngine, 'give each test service createTestEngineDatabase() from @svc/server/testing').toEqual(
      [],
    );
  });
});

describe('a run limited with --project', () => {
  it('runs on PostgreSQL only the engine projects it names, wildcards included', () => {
    const { projects: filters, others } = splitProjectFilters([
      '--project',
      'example-*',
      '--project=webhooks',
      '-t',
      'x',
    ]);
    expect(filters).toEqual(['example-*', 'webhooks']);
    expect(others).toEqual(['-t', 'x']);
    expect(postgresProjects(filters)).toEqual(ENGINE_PROJECTS.filter((n) => n.startsWith('example-')));
    expect(postgresProjects(['webhooks'])).toEqual([]);
    expect(postgresProjects([])).toEqual(ENGINE_PROJECTS);
  });
});
