import { useEffect, useState } from 'preact/hooks';
import { client } from '../../api.js';
import { useBrand } from '../../brand.js';
import { useLoad } from '../../hooks.js';
import { PageFrame } from '../../ui.js';
import { NoBrand } from '../brand/no-brand.js';
import { BrandZoneSection } from './brand-zone.js';
import { ChannelsSection } from './channels.js';
import { ClockSection, ModeSection } from './clock.js';
import { ApiKeysSection } from './keys.js';
import { McpSection } from './mcp.js';
import '../ops.css';
import './settings.css';

/** API keys, MCP configuration, channels, mode and the sandbox clock. */
export function SettingsPage() {
  const { brand, brands } = useBrand();
  const mode = useLoad(() => client.mode.retrieve(), []);
  const [newKey, setNewKey] = useState<string | null>(null);
  // Messages link to a section (`/settings#api-keys`); it exists only once the page has loaded.
  const ready = mode.data !== null;
  useEffect(() => {
    if (ready && location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
  }, [ready]);
  return (
    <PageFrame title="Settings" problem={mode.problem} loading={!mode.data && 'the settings'}>
      <nav aria-label="Settings sections" class="settings-toc">
        <a href="#api-keys">API keys</a> · <a href="#mcp">MCP configuration</a> ·{' '}
        <a href="#channels">Channels</a> · <a href="#brand">Brand</a> · <a href="#mode">Mode</a> ·{' '}
        <a href="#clock">Clock</a>
      </nav>
      <ApiKeysSection onCreated={setNewKey} />
      <McpSection apiKey={newKey} />
      {brand ? (
        <>
          <ChannelsSection brand={brand} />
          <BrandZoneSection key={brand.id} brand={brand} />
        </>
      ) : (
        brands !== null && (
          <section id="channels" aria-labelledby="channels-title">
            <h2 id="channels-title">Channels</h2>
            <NoBrand what="Channels" />
          </section>
        )
      )}
      {mode.data && <ModeSection mode={mode.data} />}
      {mode.data && <ClockSection mode={mode.data} />}
    </PageFrame>
  );
}
