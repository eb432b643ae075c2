import { type ComponentChildren, createContext } from 'preact';
import { useContext, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type Brand, type BrandMemory, client, type Platform } from '../../api.js';
import { useAction, useFocusAfterRender } from '../../hooks.js';
import { PLATFORM_NAMES } from '../../platforms.js';
import { Notice, ProblemNotice } from '../../ui.js';

/**
 * Editing Brand Memory in the app, one section at a time. Every save is one
 * `PATCH /v1/brands/{id}` carrying that section's lists whole: the API replaces a list it is
 * given and keeps the id and evidence of every entry whose text did not change, so editing one
 * rule never loses where the others came from.
 */

type MemoryPatch = NonNullable<Parameters<typeof client.brands.update>[1]['memory']>;

/** What a section does when saved: the memory part it sends, or the brand's new name. */
export type Save = (patch: { memory?: MemoryPatch; name?: string }) => Promise<boolean>;

/**
 * A section of the Memory page: its heading and **Edit** button, then either what it holds or
 * its form. Save and Cancel (or Escape) close the form and put the focus back on Edit; a failed
 * save keeps the form open with what the person typed and the reason next to the Save button.
 */
export function EditableSection(props: {
  id: string;
  title: string;
  brand: Brand;
  onSaved: () => Promise<void>;
  view: ComponentChildren;
  form: (save: Save) => ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const [notice, setNotice] = useState('');
  const editButton = useRef<HTMLButtonElement>(null);
  const action = useAction();
  const focusAfterRender = useFocusAfterRender();
  const close = () => {
    setOpen(false);
    action.setProblem(null);
    // Once the form is gone and the button is back.
    focusAfterRender(() => editButton.current);
  };
  const save: Save = async (patch) => {
    const ok = await action.run(async () => {
      await client.brands.update(props.brand.id, patch);
      await props.onSaved();
    }, `${props.title} saved.`);
    if (ok) {
      setNotice(`${props.title} saved.`);
      close();
    }
    return ok;
  };
  const headingId = `${props.id}-title`;
  return (
    <section id={props.id} aria-labelledby={headingId} class="memory-section">
      <div class="section-head">
        <h2 id={headingId}>{props.title}</h2>
        {!open && (
          <button
            ref={editButton}
            type="button"
            onClick={() => {
              setNotice('');
              setOpen(true);
            }}
          >
            Edit<span class="visually-hidden"> {props.title}</span>
          </button>
        )}
      </div>
      <Notice text={notice} />
      {open ? (
        <FormFrame title={props.title} busy={action.busy} onCancel={close} problem={action.problem}>
          {props.form(save)}
        </FormFrame>
      ) : (
        props.view
      )}
    </section>
  );
}

/** Busy state and failure of the open form, handed down by EditableSection. */
interface FrameState {
  busy: boolean;
  onCancel(): void;
  problem: ReturnType<typeof useAction>['problem'];
}

function FormFrame(props: FrameState & { title: string; children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  // Before the next paint, so the first key typed after opening the form lands in it.
  useLayoutEffect(() => {
    box.current?.querySelector<HTMLElement>('input, textarea, select')?.focus();
  }, []);
  return (
    <div ref={box} class="memory-form">
      <FrameContext.Provider value={props}>{props.children}</FrameContext.Provider>
    </div>
  );
}

const FrameContext = createContext<FrameState>({ busy: false, onCancel: () => undefined, problem: null });

/** A section's form: its fields, then Save and Cancel with the outcome beside them. */
function SectionForm(props: { title: string; onSubmit(): void; children: ComponentChildren }) {
  const frame = useContext(FrameContext);
  return (
    <form
      class="stack-form"
      aria-label={`Edit ${props.title}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && !frame.busy) {
          e.preventDefault();
          frame.onCancel();
        }
      }}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSubmit();
      }}
    >
      {props.children}
      <div class="actions">
        <button type="submit" class="primary" disabled={frame.busy} aria-busy={frame.busy}>
          {frame.busy ? 'Saving…' : `Save ${props.title.toLowerCase()}`}
        </button>
        <button type="button" onClick={frame.onCancel} disabled={frame.busy}>
          Cancel
        </button>
      </div>
      {frame.problem && <ProblemNotice problem={frame.problem} />}
    </form>
  );
}

/** One entry per line; blank lines are dropped. */
const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

function TextField(props: {
  label: string;
  value: string;
  onInput(v: string): void;
  rows?: number;
  hint?: string;
  max: number;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <>
      <label for={id}>{props.label}</label>
      {props.hint && (
        <p id={hintId} class="hint">
          {props.hint}
        </p>
      )}
      <textarea
        id={id}
        value={props.value}
        rows={props.rows ?? 4}
        maxLength={props.max}
        aria-describedby={props.hint ? hintId : undefined}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
    </>
  );
}

/** Voice: the summary, do and avoid rules (one a line) and banned words. */
export function VoiceForm({ memory, save }: { memory: BrandMemory; save: Save }) {
  const v = memory.voice;
  const [summary, setSummary] = useState(v.summary);
  const [dos, setDos] = useState(v.do.map((r) => r.text).join('\n'));
  const [avoid, setAvoid] = useState(v.avoid.map((r) => r.text).join('\n'));
  const [banned, setBanned] = useState(v.banned_words.join('\n'));
  const submit = () =>
    save({
      memory: {
        voice: {
          summary,
          do: lines(dos),
          avoid: lines(avoid),
          banned_words: banned
            .split(/[\n,]/)
            .map((w) => w.trim())
            .filter(Boolean),
        },
      },
    });
  return (
    <SectionForm title="Voice" onSubmit={submit}>
      <TextField label="Voice summary" value={summary} onInput={setSummary} rows={3} max={2000} />
      <TextField label="Do" hint="One rule a line." value={dos} onInput={setDos} max={30_000} />
      <TextField label="Avoid" hint="One rule a line." value={avoid} onInput={setAvoid} max={30_000} />
      <TextField
        label="Banned words"
        hint="One a line, or separated by commas. Drafts that use them fail the voice check."
        value={banned}
        onInput={setBanned}
        rows={3}
        max={15_000}
      />
    </SectionForm>
  );
}

/** Style rules, one a line. */
export function StyleRulesForm({ memory, save }: { memory: BrandMemory; save: Save }) {
  const [rules, setRules] = useState(memory.style_rules.map((r) => r.text).join('\n'));
  return (
    <SectionForm title="Style rules" onSubmit={() => save({ memory: { style_rules: lines(rules) } })}>
      <TextField label="Style rules" hint="One rule a line." value={rules} onInput={setRules} max={30_000} />
    </SectionForm>
  );
}

/** The brand's name (what the header's brand picker and every page call it). */
export function NameForm({ brand, save }: { brand: Brand; save: Save }) {
  const [name, setName] = useState(brand.name);
  const id = useId();
  return (
    <SectionForm title="Brand" onSubmit={() => save({ name })}>
      <label for={id}>Brand name</label>
      <input id={id} value={name} required maxLength={120} onInput={(e) => setName(e.currentTarget.value)} />
    </SectionForm>
  );
}

type Row = Record<string, string>;
interface Column {
  key: string;
  label: string;
  kind: 'line' | 'url' | 'text' | 'platform';
  required?: boolean;
  max: number;
}

/**
 * A list of entries with the same fields (audiences, products…): each entry a group named
 * "Product 2" with its fields and a Remove button, then Add. A new entry takes the focus.
 */
function RowsForm(props: {
  title: string;
  noun: string;
  columns: Column[];
  initial: Row[];
  onSubmit(rows: Row[]): void;
}) {
  const [rows, setRows] = useState<Row[]>(props.initial);
  const base = useId();
  const focusRow = useRef<number | null>(null);
  // A layout effect runs as soon as the new entry is in the DOM, before the browser handles the
  // next key: with a plain effect (after paint), the first letter typed after "Add" was lost.
  useLayoutEffect(() => {
    if (focusRow.current === null) return;
    document.getElementById(`${base}-${focusRow.current}-${props.columns[0]?.key}`)?.focus();
    focusRow.current = null;
  });
  const blank = () => Object.fromEntries(props.columns.map((c) => [c.key, ''])) as Row;
  const set = (i: number, key: string, value: string) =>
    setRows(rows.map((r, j) => (j === i ? { ...r, [key]: value } : r)));
  // Entries left wholly empty are not entries: they are dropped, not refused.
  const filled = () => rows.filter((r) => props.columns.some((c) => (r[c.key] ?? '').trim()));
  return (
    <SectionForm title={props.title} onSubmit={() => props.onSubmit(filled())}>
      {rows.length === 0 && <p class="muted">None yet: add the first below.</p>}
      {rows.map((row, i) => (
        <fieldset key={i} class="memory-row">
          <legend>
            {props.noun} {i + 1}
          </legend>
          {props.columns.map((c) => {
            const id = `${base}-${i}-${c.key}`;
            const value = row[c.key] ?? '';
            const onInput = (e: { currentTarget: { value: string } }) => set(i, c.key, e.currentTarget.value);
            return (
              <div key={c.key} class="field">
                <label for={id}>{c.label}</label>
                {c.kind === 'text' ? (
                  <textarea
                    id={id}
                    value={value}
                    rows={3}
                    maxLength={c.max}
                    required={c.required}
                    onInput={onInput}
                  />
                ) : c.kind === 'platform' ? (
                  <select id={id} value={value} onChange={onInput}>
                    <option value="">Any platform</option>
                    {(Object.keys(PLATFORM_NAMES) as Platform[]).map((p) => (
                      <option key={p} value={p}>
                        {PLATFORM_NAMES[p]}
                      </option>
                    ))}
                  </select>
                ) : (
                  <input
                    id={id}
                    {...(c.kind === 'url'
                      ? { type: 'url' as const, placeholder: 'https://' }
                      : { type: 'text' as const })}
                    value={value}
                    maxLength={c.max}
                    required={c.required}
                    onInput={onInput}
                  />
                )}
              </div>
            );
          })}
          <button type="button" class="danger" onClick={() => setRows(rows.filter((_, j) => j !== i))}>
            Remove {props.noun.toLowerCase()} {i + 1}
          </button>
        </fieldset>
      ))}
      <div>
        <button
          type="button"
          onClick={() => {
            focusRow.current = rows.length;
            setRows([...rows, blank()]);
          }}
        >
          Add {props.noun.toLowerCase()}
        </button>
      </div>
    </SectionForm>
  );
}

export function AudiencesForm({ memory, save }: { memory: BrandMemory; save: Save }) {
  return (
    <RowsForm
      title="Audiences"
      noun="Audience"
      columns={[
        { key: 'name', label: 'Name', kind: 'line', required: true, max: 120 },
        { key: 'description', label: 'Who they are and what they need', kind: 'text', max: 1000 },
      ]}
      initial={memory.audiences.map((a) => ({ name: a.name, description: a.description }))}
      onSubmit={(rows) =>
        save({
          memory: { audiences: rows.map((r) => ({ name: r.name ?? '', description: r.description ?? '' })) },
        })
      }
    />
  );
}

export function ProductsForm({ memory, save }: { memory: BrandMemory; save: Save }) {
  return (
    <RowsForm
      title="Products"
      noun="Product"
      columns={[
        { key: 'name', label: 'Name', kind: 'line', required: true, max: 120 },
        { key: 'description', label: 'Description', kind: 'text', max: 1000 },
        { key: 'url', label: 'Link (http:// or https://)', kind: 'url', max: 2000 },
      ]}
      initial={memory.products.map((p) => ({ name: p.name, description: p.description, url: p.url ?? '' }))}
      onSubmit={(rows) =>
        save({
          memory: {
            products: rows.map((r) => ({
              name: r.name ?? '',
              description: r.description ?? '',
              // The server refuses anything but http(s) and says so; the app sends what was typed.
              url: r.url?.trim() ? r.url.trim() : null,
            })),
          },
        })
      }
    />
  );
}

export function KnowledgeForm({ memory, save }: { memory: BrandMemory; save: Save }) {
  return (
    <RowsForm
      title="Knowledge"
      noun="Note"
      columns={[
        { key: 'title', label: 'Title', kind: 'line', required: true, max: 200 },
        { key: 'body', label: 'What to know', kind: 'text', required: true, max: 10_000 },
      ]}
      initial={memory.knowledge.map((k) => ({ title: k.title, body: k.body }))}
      onSubmit={(rows) =>
        save({ memory: { knowledge: rows.map((r) => ({ title: r.title ?? '', body: r.body ?? '' })) } })
      }
    />
  );
}

export function ExamplePostsForm({ memory, save }: { memory: BrandMemory; save: Save }) {
  return (
    <RowsForm
      title="Example posts"
      noun="Example"
      columns={[
        { key: 'platform', label: 'Platform', kind: 'platform', max: 20 },
        { key: 'text', label: 'Text', kind: 'text', required: true, max: 3000 },
      ]}
      initial={memory.example_posts.map((e) => ({ platform: e.platform ?? '', text: e.text }))}
      onSubmit={(rows) =>
        save({
          memory: {
            example_posts: rows.map((r) => ({
              platform: r.platform ? (r.platform as Platform) : null,
              text: r.text ?? '',
            })),
          },
        })
      }
    />
  );
}
