import { useId, useState } from 'preact/hooks';
import { type Brand, type Channel, client, type Platform } from '../../api.js';
import { useAction, useLoad } from '../../hooks.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { useLocation } from '../../router.js';
import { Notice, ProblemNotice } from '../../ui.js';

/** What the OAuth callback's `?connect_error=` codes mean to a person. */
const CONNECT_ERRORS: Record<string, string> = {
  access_denied: 'you declined access on the platform',
  invalid_state: 'the sign-in link had expired or was opened twice; start again',
  expired_state: 'the sign-in link had expired; start again',
};

/** Channels the platform asks to be connected again (the live OAuth grant expired or was withdrawn). */
const needsReconnect = (c: Channel) => (c.status as string) === 'needs_reconnect';

/**
 * The brand's channels: connect a platform (sandbox: at once; live: off to the platform's
 * sign-in page, which returns here with ?connected= or ?connect_error=), reconnect, disconnect.
 * GET /v1/channels, POST /v1/brands/{id}/channels/connect, DELETE /v1/channels/{id}.
 */
export function ChannelsSection({ brand }: { brand: Brand }) {
  const { at } = useLocation();
  const list = useLoad(
    async () => (await client.channels.list({ brand_id: brand.id, limit: 100 })).channels,
    [brand.id],
  );
  const action = useAction();
  const [platform, setPlatform] = useState<Platform>('x');
  const [handle, setHandle] = useState('');
  const base = useId();
  const connected = at.query.get('connected');
  const failed = at.query.get('connect_error');
  const justConnected = connected ? list.data?.find((c) => c.id === connected) : undefined;

  const connect = async (p: Platform, h?: string) => {
    let goTo: string | null = null;
    await action.run(
      async () => {
        const r = await client.channels.connect(brand.id, { platform: p, ...(h ? { handle: h } : {}) });
        goTo = r.authorize_url;
      },
      `${PLATFORM_NAMES[p]} connected.`,
      '',
      () => (goTo ? undefined : list.reload()),
    );
    // Live mode: the platform's sign-in page, which sends the person back to /settings.
    if (goTo) location.assign(goTo);
  };
  const current = list.data?.filter((c) => c.status !== 'disconnected') ?? [];
  const gone = list.data?.filter((c) => c.status === 'disconnected') ?? [];
  return (
    <section aria-labelledby="channels-title" id="channels">
      <h2 id="channels-title">Channels of {brand.name}</h2>
      {connected && (
        <p class="notice ok-notice" role="status">
          {justConnected
            ? `${PLATFORM_NAMES[justConnected.platform]} ${justConnected.handle} is connected.`
            : `Channel ${connected} is connected.`}
        </p>
      )}
      {failed && (
        <div class="problem" role="alert">
          <p>
            The account was not connected: {CONNECT_ERRORS[failed] ?? 'the platform refused the sign-in'} (
            <code>{failed}</code>). Try again below.
          </p>
        </div>
      )}
      <Notice text={action.notice} />
      {action.problem && <ProblemNotice problem={action.problem} />}
      {list.problem && <ProblemNotice problem={list.problem} />}
      {list.data && current.length === 0 && (
        <p class="ops-muted">
          No connected channels. Connect a platform below so posts have somewhere to go.
        </p>
      )}
      <ul class="ops-list" aria-label="Channels">
        {current.map((c) => (
          <li key={c.id}>
            <ChannelRow
              channel={c}
              busy={action.busy}
              reconnect={() => connect(c.platform, c.handle)}
              disconnect={async () => {
                await action.run(
                  () => client.channels.disconnect(c.id),
                  `${PLATFORM_NAMES[c.platform]} ${c.handle} disconnected.`,
                  '',
                  list.reload,
                );
              }}
            />
          </li>
        ))}
      </ul>
      <form
        class="ops-card connect-form"
        aria-label="Connect a channel"
        onSubmit={(e) => {
          e.preventDefault();
          connect(platform, handle.trim() || undefined);
        }}
      >
        <div class="ops-row">
          <div class="ops-field">
            <label for={`${base}-platform`}>Platform</label>
            <select
              id={`${base}-platform`}
              value={platform}
              onChange={(e) => setPlatform((e.target as HTMLSelectElement).value as Platform)}
            >
              {Object.entries(PLATFORM_NAMES).map(([id, n]) => (
                <option key={id} value={id}>
                  {n}
                </option>
              ))}
            </select>
          </div>
          <div class="ops-field">
            <label for={`${base}-handle`}>Handle (optional)</label>
            <input
              id={`${base}-handle`}
              value={handle}
              placeholder="@yourbrand"
              onInput={(e) => setHandle((e.target as HTMLInputElement).value)}
            />
          </div>
        </div>
        <button type="submit" class="primary" disabled={action.busy}>
          Connect
        </button>
      </form>
      {gone.length > 0 && (
        <details>
          <summary>{gone.length} disconnected</summary>
          <ul>
            {gone.map((c) => (
              <li key={c.id}>
                {PLATFORM_NAMES[c.platform]} {c.handle}
              </li>
            ))}
          </ul>
        </details>
      )}
    </section>
  );
}

function ChannelRow(props: { channel: Channel; busy: boolean; reconnect(): void; disconnect(): void }) {
  const c = props.channel;
  const [confirming, setConfirming] = useState(false);
  const name = `${PLATFORM_NAMES[c.platform]} ${c.handle}`;
  return (
    <article class={`ops-card channel${needsReconnect(c) ? ' needs-reconnect' : ''}`} aria-label={name}>
      <h3>{name}</h3>
      <p>
        {c.display_name} · {c.kind === 'sandbox' ? 'sandbox (publishes nowhere)' : 'live'} ·{' '}
        {needsReconnect(c) ? (
          <strong>needs reconnecting: posts cannot go out until you reconnect</strong>
        ) : (
          c.status
        )}
      </p>
      <div class="actions">
        {needsReconnect(c) && (
          <button type="button" class="primary" disabled={props.busy} onClick={props.reconnect}>
            Reconnect
          </button>
        )}
        {confirming ? (
          <>
            <span>Disconnect {name}? Scheduled posts on it will fail when due.</span>
            <button type="button" class="danger" disabled={props.busy} onClick={props.disconnect}>
              Yes, disconnect
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </>
        ) : (
          <button type="button" class="danger" onClick={() => setConfirming(true)}>
            Disconnect
          </button>
        )}
      </div>
    </article>
  );
}
