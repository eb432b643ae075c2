import { useId, useState } from 'preact/hooks';
import { type ApiKey, client, type NewApiKey } from '../../api.js';
import { useAction, useLoad } from '../../hooks.js';
import { formatTime } from '../../platforms.js';
import { Notice, ProblemNotice } from '../../ui.js';
import { CopyButton } from './copy.js';

const SCOPES = [
  { id: 'read', words: 'read: the read tools (list and look up)' },
  { id: 'write', words: 'write: the write tools (draft, note, propose a post)' },
] as const;
type Scope = (typeof SCOPES)[number]['id'];

/**
 * API keys for MCP clients: create (the key shown once, with Copy), last used, revoke with a
 * confirmation. GET/POST /v1/api-keys, DELETE /v1/api-keys/{id}. `onCreated` hands the new key
 * to the MCP snippets below so they are ready to paste.
 */
export function ApiKeysSection({ onCreated }: { onCreated(key: string | null): void }) {
  const keys = useLoad(async () => (await client.apiKeys.list()).api_keys, []);
  const action = useAction();
  const [created, setCreated] = useState<NewApiKey | null>(null);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['read', 'write']);
  const base = useId();
  const create = async (e: Event) => {
    e.preventDefault();
    const ok = await action.run(
      async () => {
        const k = await client.apiKeys.create({ name, scopes });
        setCreated(k);
        onCreated(k.key);
      },
      `Key “${name.trim()}” created. Copy it now: it is not shown again.`,
      '',
      keys.reload,
    );
    if (ok) setName('');
  };
  return (
    <section aria-labelledby="keys-title" id="api-keys">
      <h2 id="keys-title">API keys</h2>
      <p class="ops-muted">
        Keys let MCP clients (Claude, Cursor, VS Code…) read your workspace and propose posts. No key can
        publish, schedule, approve or delete: a person decides, on the Approvals page.
      </p>
      <Notice text={action.notice} />
      {action.problem && <ProblemNotice problem={action.problem} />}
      {created && (
        <section class="new-key ops-card" aria-labelledby={`${base}-new`}>
          <h3 id={`${base}-new`}>Your new key “{created.name}”</h3>
          <p>This is the only time the full key is shown. Copy it into your MCP client now.</p>
          <div class="secret">
            <label for={`${base}-secret`} class="visually-hidden">
              The new API key
            </label>
            <input
              id={`${base}-secret`}
              readOnly
              value={created.key}
              onFocus={(e) => (e.target as HTMLInputElement).select()}
            />
            <CopyButton text={created.key} label="Copy the new API key" target={`${base}-secret`} />
          </div>
          <button
            type="button"
            onClick={() => {
              setCreated(null);
              onCreated(null);
            }}
          >
            I have copied it
          </button>
        </section>
      )}
      <form class="ops-card key-form" onSubmit={create} aria-label="Create an API key">
        <div class="ops-field">
          <label for={`${base}-name`}>Key name</label>
          <input
            id={`${base}-name`}
            required
            maxLength={100}
            placeholder="e.g. Claude on my laptop"
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </div>
        <fieldset class="ops-field">
          <legend>Scopes</legend>
          {SCOPES.map((s) => (
            <label key={s.id} class="ops-check">
              <input
                type="checkbox"
                checked={scopes.includes(s.id)}
                onChange={(e) =>
                  setScopes((prev) =>
                    (e.target as HTMLInputElement).checked ? [...prev, s.id] : prev.filter((x) => x !== s.id),
                  )
                }
              />
              {s.words}
            </label>
          ))}
        </fieldset>
        <button type="submit" class="primary" disabled={action.busy || scopes.length === 0}>
          Create key
        </button>
      </form>
      {keys.problem && <ProblemNotice problem={keys.problem} />}
      {keys.data?.length === 0 && <p class="ops-muted">No keys yet. Create one above for your MCP client.</p>}
      <ul class="ops-list keys" aria-label="API keys">
        {keys.data?.map((k) => (
          <li key={k.id}>
            <KeyRow
              apiKey={k}
              busy={action.busy}
              revoke={() =>
                action
                  .run(
                    () => client.apiKeys.revoke(k.id),
                    `Key “${k.name}” revoked. Clients using it are refused from now on.`,
                  )
                  .then((ok) => {
                    // A revoked key no longer belongs in the snippets or on screen.
                    if (ok && created?.id === k.id) {
                      setCreated(null);
                      onCreated(null);
                    }
                    return keys.reload();
                  })
              }
            />
          </li>
        ))}
      </ul>
    </section>
  );
}

function KeyRow({ apiKey: k, busy, revoke }: { apiKey: ApiKey; busy: boolean; revoke(): void }) {
  const [confirming, setConfirming] = useState(false);
  const titleId = `key-${k.id}`;
  return (
    <article class="ops-card key" aria-labelledby={titleId}>
      <h3 id={titleId}>{k.name}</h3>
      <p>
        <code>{k.prefix}…</code> · {k.scopes.join(' and ')} · created {formatTime(k.created_at)} ·{' '}
        {k.last_used_at ? `last used ${formatTime(k.last_used_at)}` : 'never used'}
      </p>
      {confirming ? (
        <div class="confirm">
          <p>
            Revoke “{k.name}”? Every client using it is refused from its next request. This cannot be undone.
          </p>
          <div class="actions">
            <button type="button" class="danger" disabled={busy} onClick={revoke}>
              Yes, revoke
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <button
          type="button"
          class="danger"
          onClick={() => setConfirming(true)}
          aria-label={`Revoke ${k.name}`}
        >
          Revoke
        </button>
      )}
    </article>
  );
}
