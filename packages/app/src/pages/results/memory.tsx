import { type Brand, type BrandMemory, client, type MemoryProposal } from '../../api.js';
import { useBrand } from '../../brand.js';
import { useAction, useLoad } from '../../hooks.js';
import { formatTime, PLATFORM_NAMES } from '../../platforms.js';
import { Link, useLocation } from '../../router.js';
import { Notice, PageFrame, ProblemNotice } from '../../ui.js';
import {
  AudiencesForm,
  EditableSection,
  ExamplePostsForm,
  KnowledgeForm,
  NameForm,
  ProductsForm,
  StyleRulesForm,
  VoiceForm,
} from './memory-edit.js';
import { EvidenceList, excerptOf, OutLink, PostLink, WithBrand } from './shared.js';

type Rule = BrandMemory['voice']['do'][number];

const TARGET_NAMES: Record<MemoryProposal['change']['target'], string> = {
  'voice.do': 'Voice: do',
  'voice.avoid': 'Voice: avoid',
  style_rules: 'Style rules',
};

/** Every section of Brand Memory with its evidence, and the memory proposals to apply or dismiss. */
export function MemoryPage() {
  const { at } = useLocation();
  const { brand } = useBrand();
  return (
    <PageFrame
      title="Brand Memory"
      actions={
        <Link class="button" href="/brands/new">
          New brand
        </Link>
      }
    >
      {at.query.get('created') && brand && (
        <div class="notice" role="status">
          Brand "{brand.name}" created. Fill in its Brand Memory below (Edit on each section), then connect
          its channels in <Link href="/settings#channels">Settings → Channels</Link>.
        </div>
      )}
      <WithBrand what="Brand Memory and its proposals">{(brand) => <Memory brand={brand} />}</WithBrand>
    </PageFrame>
  );
}

function Memory({ brand }: { brand: Brand }) {
  const { reload: reloadBrands } = useBrand();
  const memory = useLoad(() => client.brands.memory.retrieve(brand.id), [brand.id]);
  const proposals = useLoad(
    async () => await client.memoryProposals.list({ brand_id: brand.id, limit: 100 }),
    [brand.id],
  );
  const act = useAction();
  const decide = async (p: MemoryProposal, how: 'apply' | 'dismiss') => {
    const done =
      how === 'apply'
        ? `Applied: "${p.change.text}" is now in ${TARGET_NAMES[p.change.target]}.`
        : `Dismissed: "${p.change.text}". Brand Memory is unchanged.`;
    // Whatever happened (a proposal decided elsewhere answers 409), show the state as it is now.
    await act.run(
      () => client.memoryProposals[how](p.id),
      done,
      '',
      (ok) => Promise.all([proposals.reload(), ok && how === 'apply' ? memory.reload() : null]),
    );
  };
  const pending = proposals.data?.memory_proposals.filter((p) => p.status === 'pending') ?? [];
  const decided = proposals.data?.memory_proposals.filter((p) => p.status !== 'pending') ?? [];
  return (
    <>
      <section aria-labelledby="proposals-title">
        <h2 id="proposals-title">Proposals</h2>
        <Notice text={act.notice} />
        {act.problem && <ProblemNotice problem={act.problem} />}
        {proposals.problem && <ProblemNotice problem={proposals.problem} />}
        {!proposals.data && !proposals.problem && <p class="loading">Loading memory proposals…</p>}
        {proposals.data && (
          <p class="counts">
            <strong>{proposals.data.counts.pending} pending</strong> · {proposals.data.counts.applied} applied
            · {proposals.data.counts.dismissed} dismissed
          </p>
        )}
        {proposals.data && pending.length === 0 && (
          <p>
            No proposals waiting. The voice refresh agent proposes rules from what worked in your recent
            posts: start it from Agents (<code>voice_refresh</code>) or an automation.
          </p>
        )}
        <ul class="proposals">
          {pending.map((p) => (
            <li
              key={p.id}
              id={`proposal-${p.id}`}
              class="proposal"
              aria-labelledby={`proposal-${p.id}-title`}
            >
              <h3 id={`proposal-${p.id}-title`}>
                <span class="muted">Add to {TARGET_NAMES[p.change.target]}:</span> {p.change.text}
              </h3>
              <p>
                <strong>Why:</strong> {p.why}
              </p>
              <p>
                <strong>Lift:</strong> {p.lift.toFixed(2)}× the median engagements of posts without it
              </p>
              <p>
                <strong>Evidence posts:</strong>
              </p>
              <ul class="evidence">
                {p.evidence.map((e) => (
                  <li key={e.post_id}>
                    <PostLink id={e.post_id}>{excerptOf(e.excerpt, 100)}</PostLink>
                  </li>
                ))}
              </ul>
              <div class="actions">
                <button
                  type="button"
                  class="primary"
                  disabled={act.busy}
                  aria-describedby={`proposal-${p.id}-title`}
                  onClick={() => decide(p, 'apply')}
                >
                  Apply
                </button>
                <button
                  type="button"
                  disabled={act.busy}
                  aria-describedby={`proposal-${p.id}-title`}
                  onClick={() => decide(p, 'dismiss')}
                >
                  Dismiss
                </button>
              </div>
            </li>
          ))}
        </ul>
        {decided.length > 0 && (
          <details class="decided">
            <summary>Decided proposals ({decided.length})</summary>
            <ul>
              {decided.map((p) => (
                <li key={p.id}>
                  {p.status === 'applied' ? 'Applied' : 'Dismissed'}
                  {p.decided_at && ` ${formatTime(p.decided_at)}`}: {p.change.text} (
                  {TARGET_NAMES[p.change.target]})
                </li>
              ))}
            </ul>
          </details>
        )}
      </section>
      {memory.problem && <ProblemNotice problem={memory.problem} />}
      {!memory.data && !memory.problem && <p class="loading">Loading Brand Memory…</p>}
      {memory.data && (
        <MemorySections
          brand={brand}
          memory={memory.data}
          onSaved={async () => {
            await Promise.all([memory.reload(), reloadBrands()]);
          }}
        />
      )}
    </>
  );
}

function Rules({ rules, none }: { rules: Rule[]; none: string }) {
  if (rules.length === 0) return <p class="muted">{none}</p>;
  return (
    <ul class="rules">
      {rules.map((r) => (
        <li key={r.id}>
          {r.text}
          <EvidenceList evidence={r.evidence} />
        </li>
      ))}
    </ul>
  );
}

function MemorySections({
  brand,
  memory,
  onSaved,
}: {
  brand: Brand;
  memory: BrandMemory;
  onSaved: () => Promise<void>;
}) {
  const v = memory.voice;
  const section = { brand, onSaved };
  return (
    <div class="memory">
      <EditableSection
        id="brand"
        title="Brand"
        {...section}
        view={
          <p>
            <strong>{brand.name}</strong>
          </p>
        }
        form={(save) => <NameForm brand={brand} save={save} />}
      />
      <EditableSection
        id="voice"
        title="Voice"
        {...section}
        view={
          <>
            <p>{v.summary || <span class="muted">No voice summary yet.</span>}</p>
            <h3>Do</h3>
            <Rules rules={v.do} none="Nothing yet." />
            <h3>Avoid</h3>
            <Rules rules={v.avoid} none="Nothing yet." />
            <h3>Banned words</h3>
            {v.banned_words.length ? (
              <ul class="tags">
                {v.banned_words.map((w) => (
                  <li key={w}>{w}</li>
                ))}
              </ul>
            ) : (
              <p class="muted">None.</p>
            )}
          </>
        }
        form={(save) => <VoiceForm memory={memory} save={save} />}
      />
      <EditableSection
        id="audiences"
        title="Audiences"
        {...section}
        view={
          memory.audiences.length === 0 ? (
            <p class="muted">No audiences yet.</p>
          ) : (
            <ul>
              {memory.audiences.map((a) => (
                <li key={a.id}>
                  <strong>{a.name}</strong>
                  {a.description && `: ${a.description}`}
                </li>
              ))}
            </ul>
          )
        }
        form={(save) => <AudiencesForm memory={memory} save={save} />}
      />
      <EditableSection
        id="products"
        title="Products"
        {...section}
        view={
          memory.products.length === 0 ? (
            <p class="muted">No products yet.</p>
          ) : (
            <ul>
              {memory.products.map((p) => (
                <li key={p.id}>
                  <strong>{p.name}</strong>
                  {p.description && `: ${p.description}`}
                  {p.url && (
                    <>
                      {' '}
                      <OutLink url={p.url} />
                    </>
                  )}
                </li>
              ))}
            </ul>
          )
        }
        form={(save) => <ProductsForm memory={memory} save={save} />}
      />
      <EditableSection
        id="knowledge"
        title="Knowledge"
        {...section}
        view={
          memory.knowledge.length === 0 ? (
            <p class="muted">No knowledge notes yet.</p>
          ) : (
            <ul class="knowledge">
              {memory.knowledge.map((k) => (
                <li key={k.id}>
                  <h3>{k.title}</h3>
                  {k.kind === 'excerpt' ? <blockquote>{k.body}</blockquote> : <p class="text">{k.body}</p>}
                  {k.source && <EvidenceList evidence={[k.source]} />}
                </li>
              ))}
            </ul>
          )
        }
        form={(save) => <KnowledgeForm memory={memory} save={save} />}
      />
      <EditableSection
        id="style-rules"
        title="Style rules"
        {...section}
        view={<Rules rules={memory.style_rules} none="No style rules yet." />}
        form={(save) => <StyleRulesForm memory={memory} save={save} />}
      />
      <EditableSection
        id="example-posts"
        title="Example posts"
        {...section}
        view={
          memory.example_posts.length === 0 ? (
            <p class="muted">No example posts yet.</p>
          ) : (
            <ul class="knowledge">
              {memory.example_posts.map((e) => (
                <li key={e.id}>
                  {e.platform && <span class="badge">{PLATFORM_NAMES[e.platform]}</span>}
                  <p class="text">{e.text}</p>
                  {e.source && <EvidenceList evidence={[e.source]} />}
                </li>
              ))}
            </ul>
          )
        }
        form={(save) => <ExamplePostsForm memory={memory} save={save} />}
      />
    </div>
  );
}
