import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HttpResponse, http } from 'msw';
import { afterAll, describe, expect, it } from 'vitest';
import type { Uploadable } from '../src/index.js';
import { BASE, makeClient, seen, server, useServer } from './helpers.js';
import { makePng } from './png.js';

useServer();

const dir = mkdtempSync(join(tmpdir(), 'content-client-media-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function acceptUpload() {
  server.use(
    http.post(`${BASE}/brands/brd_1/media`, () => HttpResponse.json({ id: 'med_1' }, { status: 201 })),
  );
}

async function sentFile() {
  const form = await (seen[0] as Request).formData();
  const file = form.get('file') as File;
  return { form, file, bytes: new Uint8Array(await file.arrayBuffer()) };
}

describe('media.upload sends one multipart file part, from any kind of input', () => {
  const png = new Uint8Array(makePng(8, 8));

  it.each([
    ['a Blob', () => new Blob([png]), 'upload'],
    ['a File (keeps its name)', () => new File([png], 'photo.png', { type: 'image/png' }), 'photo.png'],
    ['a Buffer', () => Buffer.from(png), 'upload'],
    ['a view into a larger buffer', () => new Uint8Array([7, 7, ...png]).subarray(2), 'upload'],
    ['an ArrayBuffer', () => png.slice().buffer, 'upload'],
  ] as [string, () => Uploadable, string][])('%s', async (_label, input, name) => {
    acceptUpload();
    const asset = await makeClient().client.media.upload('brd_1', input());
    expect(asset.id).toBe('med_1');
    const { file, bytes } = await sentFile();
    expect(file.name).toBe(name);
    expect(bytes).toEqual(png);
    expect(seen[0]?.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
  });

  it('a path is read from disk, named after the file', async () => {
    const path = join(dir, 'banner.png');
    writeFileSync(path, png);
    acceptUpload();
    await makeClient().client.media.upload('brd_1', path);
    const { file, bytes } = await sentFile();
    expect(file.name).toBe('banner.png');
    expect(bytes).toEqual(png);
  });

  it('sends alt, each tag, and a chosen filename', async () => {
    acceptUpload();
    await makeClient().client.media.upload('brd_1', png, {
      alt: 'Our team',
      tags: ['launch', 'q3'],
      filename: 'x.png',
    });
    const { form, file } = await sentFile();
    expect(file.name).toBe('x.png');
    expect(form.get('alt')).toBe('Our team');
    expect(form.getAll('tags')).toEqual(['launch', 'q3']);
  });

  it('a missing path rejects without sending anything', async () => {
    await expect(makeClient().client.media.upload('brd_1', join(dir, 'nope.png'))).rejects.toThrow(/ENOENT/);
    expect(seen).toHaveLength(0);
  });

  it('anything else is a TypeError', async () => {
    await expect(makeClient().client.media.upload('brd_1', 42 as unknown as Blob)).rejects.toThrow(TypeError);
  });
});
