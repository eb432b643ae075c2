import { type Approval, client } from '../../api.js';
import { useLoad } from '../../hooks.js';
import { formatTime } from '../../platforms.js';
import { all, type DraftSummary } from './common.js';

/** Ends a reason with a full stop unless it already ends a sentence. */
const sentence = (t: string) => (/[.!?…]$/.test(t.trim()) ? t.trim() : `${t.trim()}.`);

/**
 * The brand's rejected approvals, newest decision per draft. A rejection sends the draft back to
 * `draft` status, so its status alone cannot say it was rejected; the approval can, with why.
 */
export function useRejections(brandId: string) {
  const loaded = useLoad(
    () => all(client.approvals.list({ brand_id: brandId, status: 'rejected', limit: 100 })),
    [brandId],
  );
  const byDraft = new Map<string, Approval>();
  for (const a of loaded.data ?? []) {
    const seen = byDraft.get(a.draft.id);
    if (!seen || (a.decided_at ?? '') > (seen.decided_at ?? '')) byDraft.set(a.draft.id, a);
  }
  return byDraft;
}

/** The rejection that still stands: the draft went back to `draft` and was not proposed again. */
export const standingRejection = (d: Pick<DraftSummary, 'id' | 'status'>, byDraft: Map<string, Approval>) =>
  d.status === 'draft' ? (byDraft.get(d.id) ?? null) : null;

/** "Rejected on Tue, 3 Mar…: too salesy. Edit it and propose it again." */
export function Rejected({ draft }: { draft: Pick<DraftSummary, 'id' | 'status' | 'brand_id'> }) {
  const rejection = standingRejection(draft, useRejections(draft.brand_id));
  if (!rejection) return null;
  return (
    <p class="stale rejected">
      <strong>Rejected</strong>
      {rejection.decided_at ? ` on ${formatTime(rejection.decided_at)}` : ''}
      {rejection.decision_reason ? `: ${sentence(rejection.decision_reason)}` : '.'} Edit it and propose it
      again, or leave it.
    </p>
  );
}
