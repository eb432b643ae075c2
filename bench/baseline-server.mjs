// The baseline: what the same request costs with nothing but express and better-sqlite3 over
// the same database file. No validation, no error shape, no logging.
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import express from 'express';

const db = new Database(process.argv[2]);
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');
const findKey = db.prepare(
  'SELECT id, account_id, env FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL',
);
const touchKey = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?');
const findOffer = db.prepare('SELECT * FROM offers WHERE id = ? AND account_id = ? AND env = ?');

const app = express();
app.get('/health', (_req, res) => res.json({ ok: true }));
app.get('/offers/:id', (req, res) => {
  const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
  const k = findKey.get(createHash('sha256').update(key).digest('hex'));
  if (!k) return res.status(401).json({ error: 'unauthorized' });
  touchKey.run(new Date().toISOString(), k.id);
  const offer = findOffer.get(req.params.id, k.account_id, k.env);
  if (!offer) return res.status(404).json({ error: 'not found' });
  res.json(offer);
});

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`baseline http://127.0.0.1:${server.address().port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
