import { Link } from '../../router.js';
import { Empty } from '../../ui.js';

/**
 * What every per-brand page shows while the workspace has no brand: it leads to the page that
 * creates one, so a person with no demo data starts in the app, not in the API reference.
 * `what` names what the page holds ("Ideas", "Channels").
 */
export function NoBrand({ what }: { what: string }) {
  return (
    <Empty title="No brand yet">
      <p>
        {what} belong to a brand. Create one first: its name and voice, then its audiences, products and rules
        in Brand Memory, then its channels in Settings.
      </p>
      <p>
        <Link class="button primary" href="/brands/new">
          Create a brand
        </Link>
      </p>
    </Empty>
  );
}
