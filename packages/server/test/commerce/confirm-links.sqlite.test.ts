import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmLinksHashed } from '../../src/commerce/db/migrations/009-confirm-links-hashed.js';
import { confirmLinkTools } from './confirm-link-tools.js';
import { type Commerce, startCommerce } from './helpers.js';

// SQLite only: the fix-up is SQLite's (PostgreSQL deployments never stored such links).
describe('hosted confirm links kept by older versions', () => {
  let c: Commerce;
  beforeAll(async () => {
    c = await startCommerce();
  });
  afterAll(() => c.close());

  const { row, waiting } = confirmLinkTools(() => c);

  it('the migration drops links kept by older versions, and a link already handed out still opens its page', async () => {
    const { chk } = await waiting();
    // A row as an older version wrote it: the link, token and all, in next_action.
    await c.handle.db.run('UPDATE checkouts SET next_action = ? WHERE id = ?', [
      JSON.stringify(chk.next_action),
      chk.id,
    ]);
    expect((await row(chk.id))?.next_action).toContain('token=');
    await c.handle.db.run(confirmLinksHashed.up as string);
    const migrated = JSON.parse((await row(chk.id))?.next_action as string);
    expect(migrated).toEqual({ type: 'user_confirmation', description: chk.next_action.description });
    expect((await fetch(chk.next_action.url)).status).toBe(200);
  });
});
