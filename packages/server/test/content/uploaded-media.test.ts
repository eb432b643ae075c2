import { describe, expect, it } from 'vitest';
import { REUSE_MARGIN_MS, uploadedMediaCache } from '../../src/content/publishers/uploaded-media.js';

/** The in-process memory of platform media ids (live-publish.test.ts shows the retry over HTTP). */
describe('uploaded media ids', () => {
  const key = { postId: 'pst_1', platform: 'x', assetId: 'med_1', file: 'original.gif' };

  it('reuses an id only while it lives past the margin, and only for the same file', () => {
    const cache = uploadedMediaCache();
    cache.remember(key, '1001', 1_000_000 + REUSE_MARGIN_MS + 1);
    expect(cache.get(key, 1_000_000)).toBe('1001');
    expect(cache.get({ ...key, file: 'wide.2.png' }, 1_000_000)).toBeUndefined();
    expect(cache.get(key, 1_000_001)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('forgets a post once it is done, and keeps at most its cap, oldest out first', () => {
    const cache = uploadedMediaCache(2);
    for (const postId of ['pst_a', 'pst_b', 'pst_c'])
      cache.remember({ ...key, postId }, postId, Number.MAX_SAFE_INTEGER);
    expect(cache.get({ ...key, postId: 'pst_a' }, 0)).toBeUndefined();
    expect(cache.get({ ...key, postId: 'pst_c' }, 0)).toBe('pst_c');
    cache.forgetPost('pst_c');
    expect(cache.size).toBe(1);
  });
});
