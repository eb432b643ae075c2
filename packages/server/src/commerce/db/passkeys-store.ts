import { fromJson, toJson } from '../../platform/db/json.js';
import type { SqlExecutor } from '../../platform/db/sql.js';

export interface PasskeyRecord {
  /** The credential id, base64url, as the authenticator gave it. */
  id: string;
  user_id: string;
  /** The WebAuthn relying party it was made for: an assertion for any other is refused. */
  rp_id: string;
  /** COSE public key, base64url. */
  public_key: string;
  counter: number;
  transports: string[];
  created_at: string;
  last_used_at: string | null;
}

/** register: a new passkey on the approval page; approve: an existing user's signature on it; confirm: a total. */
export type ChallengePurpose = 'register' | 'approve' | 'confirm';

export interface ChallengeRecord {
  purpose: ChallengePurpose;
  /** The approval (register) or the checkout (confirm) the page was rendered for. */
  subject_id: string;
  challenge_hash: string;
  rp_id: string;
  origin: string;
  expires_at: string;
}

type PasskeyRow = Omit<PasskeyRecord, 'transports'> & { transports: string };

export function passkeysStore(db: SqlExecutor) {
  return {
    async forUser(userId: string): Promise<PasskeyRecord[]> {
      const rows = await db.all<PasskeyRow>(
        'SELECT * FROM passkeys WHERE user_id = ? ORDER BY created_at, id',
        [userId],
      );
      return rows.map((r) => ({ ...r, transports: fromJson<string[]>(r.transports) }));
    },
    async insert(p: PasskeyRecord): Promise<void> {
      await db.run(
        `INSERT INTO passkeys (id, user_id, rp_id, public_key, counter, transports, created_at, last_used_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          p.id,
          p.user_id,
          p.rp_id,
          p.public_key,
          p.counter,
          toJson(p.transports),
          p.created_at,
          p.last_used_at,
        ],
      );
    },
    /** Whether any user already holds this credential id (a second registration of one authenticator). */
    async exists(id: string): Promise<boolean> {
      return (await db.get('SELECT 1 AS one FROM passkeys WHERE id = ?', [id])) !== undefined;
    },
    /**
     * Records a use. The counter only moves forward (the WHERE), so two racing submits of one
     * assertion cannot both count: the second changes nothing and is refused by its caller.
     */
    async used(id: string, counter: number, at: string): Promise<boolean> {
      const { changes } = await db.run(
        'UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ? AND (counter < ? OR counter = 0)',
        [counter, at, id, counter],
      );
      return changes === 1;
    },
    /** Issues the page's challenge; a newer render of the same page replaces the older one. */
    async issueChallenge(c: ChallengeRecord): Promise<void> {
      await db.run(
        `INSERT INTO webauthn_challenges (purpose, subject_id, challenge_hash, rp_id, origin, expires_at)
         VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (purpose, subject_id) DO UPDATE SET challenge_hash = excluded.challenge_hash,
           rp_id = excluded.rp_id, origin = excluded.origin, expires_at = excluded.expires_at`,
        [c.purpose, c.subject_id, c.challenge_hash, c.rp_id, c.origin, c.expires_at],
      );
    },
    /**
     * Takes the challenge a submitted response answers, once: it is deleted whatever the outcome,
     * so a replayed response finds nothing. Only the page subject's current challenge matches.
     */
    async takeChallenge(
      purpose: ChallengePurpose,
      subjectId: string,
      challengeHash: string,
    ): Promise<ChallengeRecord | undefined> {
      return db.get<ChallengeRecord>(
        `DELETE FROM webauthn_challenges WHERE purpose = ? AND subject_id = ? AND challenge_hash = ?
         RETURNING *`,
        [purpose, subjectId, challengeHash],
      );
    },
  };
}
