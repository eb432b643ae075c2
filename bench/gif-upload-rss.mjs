#!/usr/bin/env node
// `node bench/gif-upload-rss.mjs <file.gif>`: the server's peak RSS (VmHWM) for one upload of a
// GIF, against its peak once started and idle. Made for the animated-GIF decode budget
// (docs/content/media.md): run it with the largest GIF the budget accepts, before and after a
// change. SQLite, one server, one upload; the figure is the kernel's high-water mark, not a timing.
import { readFileSync } from 'node:fs';
import { startServer } from './lib.mjs';

const file = process.argv[2];
if (!file) throw new Error('usage: node bench/gif-upload-rss.mjs <file.gif>');
const hwm = (pid) => {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
};
const server = await startServer({ SERVICE_SEED: 'none' });
try {
  const brand = await fetch(`${server.content}/v1/brands`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'GIF memory' }),
  }).then((r) => r.json());
  const idle = hwm(server.pid);
  const form = new FormData();
  form.append('file', new Blob([readFileSync(file)], { type: 'image/gif' }), 'big.gif');
  const res = await fetch(`${server.content}/v1/brands/${brand.id}/media`, { method: 'POST', body: form });
  const body = await res.json();
  const peak = hwm(server.pid);
  console.log(
    `${file}: HTTP ${res.status}${res.ok ? '' : ` ${body.error?.code}`}; peak RSS idle ${idle.toFixed(0)} MB, after the upload ${peak.toFixed(0)} MB (+${(peak - idle).toFixed(0)} MB)`,
  );
} finally {
  await server.stop();
}
