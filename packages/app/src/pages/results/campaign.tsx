import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { type CanvasItem, client } from '../../api.js';
import { useAction, useFocusAfterRender, useLoad } from '../../hooks.js';
import { Link } from '../../router.js';
import { Notice, PageFrame, ProblemNotice } from '../../ui.js';
import { datesOf } from './campaigns.js';
import { excerptOf } from './shared.js';

const COLOURS = ['yellow', 'pink', 'blue', 'green', 'purple'] as const;
type Colour = (typeof COLOURS)[number];
const COLOUR_NAMES: Record<Colour, string> = {
  yellow: 'Yellow',
  pink: 'Pink',
  blue: 'Blue',
  green: 'Green',
  purple: 'Purple',
};
/** Pixels per arrow key press (Shift: STEP × 5). */
const STEP = 20;
const PAD = 16;

/** One campaign: its goal and dates, and its canvas of sticky notes to add, edit and move. */
export function CampaignPage({ id }: { id: string }) {
  const campaign = useLoad(() => client.campaigns.retrieve(id), [id]);
  const c = campaign.data;
  return (
    <PageFrame
      title={c ? `Campaign: ${c.name}` : 'Campaign'}
      problem={campaign.problem}
      loading={!c && 'the campaign'}
    >
      {c && (
        <>
          {c.goal && (
            <p>
              <strong>Goal:</strong> {c.goal}
            </p>
          )}
          {datesOf(c) && <p class="muted">{datesOf(c)}</p>}
          <CanvasBoard campaignId={c.id} />
        </>
      )}
      <p>
        <Link href="/campaigns">Back to all campaigns</Link>
      </p>
    </PageFrame>
  );
}

function CanvasBoard({ campaignId }: { campaignId: string }) {
  const canvas = useLoad(() => client.campaigns.canvas.retrieve(campaignId), [campaignId]);
  const [items, setItems] = useState<CanvasItem[]>([]);
  useEffect(() => setItems(canvas.data?.items ?? []), [canvas.data]);
  const act = useAction();
  const focusAfterRender = useFocusAfterRender();
  const [editing, setEditing] = useState<string | null>(null);

  /**
   * Where the person last put each note, ahead of the server and of the render: the next arrow key
   * builds on it, and a save's answer for an older position (the first of two quick moves, answered
   * while the second key is down) must not pull the note back, or the next save would send it.
   */
  const placed = useRef(new Map<string, { x: number; y: number }>());
  const replace = (item: CanvasItem) => {
    const at = placed.current.get(item.id);
    setItems((all) => all.map((i) => (i.id === item.id ? { ...item, ...at } : i)));
  };
  /**
   * Changes go to the server one after another: two quick moves are two requests, and the answer
   * to the first must not land after the second and put the note back where the first left it.
   */
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const save = (
    itemId: string,
    change: Partial<Pick<CanvasItem, 'text' | 'color' | 'x' | 'y'>>,
    done: string,
  ): Promise<boolean> => {
    const next = queue.current.then(() =>
      act.run(
        async () => replace(await client.campaigns.canvas.updateItem(campaignId, itemId, change)),
        done,
      ),
    );
    queue.current = next;
    return next;
  };
  const add = (text: string, color: Colour) =>
    act.run(async () => {
      const note = await client.campaigns.canvas.addNote(campaignId, { text, color });
      setItems((all) => [...all, note]);
    }, 'Note added to the canvas.');
  const remove = (itemId: string) =>
    act.run(async () => {
      await client.campaigns.canvas.deleteItem(campaignId, itemId);
      setItems((all) => all.filter((i) => i.id !== itemId));
      setEditing(null);
    }, 'Note removed from the canvas.');
  /** Closes the editor and puts the focus back on the note's Edit button, where it was. */
  const closeEditor = (itemId: string) => {
    setEditing(null);
    focusAfterRender(() =>
      document.querySelector<HTMLElement>(`[data-note-id="${CSS.escape(itemId)}"] .note-edit`),
    );
  };
  /** Moves on screen at once; the position is saved when the move ends. */
  const moveLocally = (itemId: string, x: number, y: number) => {
    placed.current.set(itemId, { x, y });
    setItems((all) => all.map((i) => (i.id === itemId ? { ...i, x, y } : i)));
  };
  const nudge = (itemId: string, dx: number, dy: number) => {
    const item = items.find((i) => i.id === itemId);
    const from = placed.current.get(itemId) ?? item;
    if (from) moveLocally(itemId, from.x + dx, from.y + dy);
  };
  /** Saves where the note was put; once that answer is in and nothing moved it since, the server's word holds. */
  const saveMove = async (itemId: string) => {
    const at = placed.current.get(itemId);
    if (!at) return;
    await save(itemId, at, `Note moved to ${Math.round(at.x)}, ${Math.round(at.y)}.`);
    if (placed.current.get(itemId) === at) placed.current.delete(itemId);
  };

  if (canvas.problem) return <ProblemNotice problem={canvas.problem} />;
  if (!canvas.data) return <p class="loading">Loading the canvas…</p>;
  const minX = Math.min(0, ...items.map((i) => i.x));
  const minY = Math.min(0, ...items.map((i) => i.y));
  const width = Math.max(0, ...items.map((i) => i.x + i.w)) - minX + PAD * 2;
  const height = Math.max(200, ...items.map((i) => i.y + i.h)) - minY + PAD * 2;
  // Reading order for screen readers and Tab: top to bottom, then left to right.
  const ordered = [...items].sort((a, b) => a.y - b.y || a.x - b.x);
  const editItem = items.find((i) => i.id === editing) ?? null;
  return (
    <section aria-labelledby="canvas-title">
      <h2 id="canvas-title">Canvas</h2>
      <p class="muted">
        {items.length} {items.length === 1 ? 'item' : 'items'}. Move a note by dragging its handle, or focus
        the handle and use the arrow keys (Shift moves further).
      </p>
      <Notice text={act.notice} />
      {act.problem && <ProblemNotice problem={act.problem} />}
      <div class="board-scroll">
        <ul class="board" style={{ width: `${width}px`, height: `${height}px` }}>
          {ordered.map((item) => (
            <Note
              key={item.id}
              item={item}
              left={item.x - minX + PAD}
              top={item.y - minY + PAD}
              busy={act.busy}
              onEdit={() => setEditing(item.id)}
              onMove={(x, y) => moveLocally(item.id, x, y)}
              onNudge={(dx, dy) => nudge(item.id, dx, dy)}
              onMoveEnd={() => saveMove(item.id)}
            />
          ))}
        </ul>
      </div>
      {editItem && (
        <NoteEditor
          key={editItem.id}
          item={editItem}
          busy={act.busy}
          onSave={async (text, color) => {
            if (await save(editItem.id, { text, color }, 'Note saved.')) closeEditor(editItem.id);
          }}
          onDelete={() => remove(editItem.id)}
          onCancel={() => closeEditor(editItem.id)}
        />
      )}
      <NoteForm busy={act.busy} onAdd={add} />
    </section>
  );
}

function Note(props: {
  item: CanvasItem;
  left: number;
  top: number;
  busy: boolean;
  onEdit(): void;
  onMove(x: number, y: number): void;
  onNudge(dx: number, dy: number): void;
  onMoveEnd(): void;
}) {
  const { item } = props;
  const drag = useRef<{ px: number; py: number; x: number; y: number } | null>(null);
  const name = excerptOf(item.text, 40);
  const keyMove = (e: KeyboardEvent) => {
    const step = e.shiftKey ? STEP * 5 : STEP;
    const by: Record<string, [number, number]> = {
      ArrowLeft: [-step, 0],
      ArrowRight: [step, 0],
      ArrowUp: [0, -step],
      ArrowDown: [0, step],
    };
    const d = by[e.key];
    if (!d) return;
    e.preventDefault();
    props.onNudge(d[0], d[1]);
  };
  /** Saved when the key is let go, so holding an arrow key sends one change, not one per step. */
  const keySave = (e: KeyboardEvent) => {
    if (e.key in { ArrowLeft: 1, ArrowRight: 1, ArrowUp: 1, ArrowDown: 1 }) props.onMoveEnd();
  };
  return (
    <li
      class={`note note-${item.color}${item.kind === 'idea' ? ' note-idea' : ''}`}
      style={{
        left: `${props.left}px`,
        top: `${props.top}px`,
        width: `${item.w}px`,
        minHeight: `${item.h}px`,
      }}
      data-note-id={item.id}
    >
      <button
        type="button"
        class="note-handle"
        aria-label={`Move note: ${name}`}
        aria-keyshortcuts="ArrowLeft ArrowRight ArrowUp ArrowDown"
        onKeyDown={keyMove}
        onKeyUp={keySave}
        onPointerDown={(e) => {
          (e.currentTarget as HTMLElement).setPointerCapture(e.pointerId);
          drag.current = { px: e.clientX, py: e.clientY, x: item.x, y: item.y };
        }}
        onPointerMove={(e) => {
          const d = drag.current;
          if (d) props.onMove(d.x + e.clientX - d.px, d.y + e.clientY - d.py);
        }}
        onPointerUp={(e) => {
          const d = drag.current;
          drag.current = null;
          if (!d || (e.clientX === d.px && e.clientY === d.py)) return;
          props.onMove(Math.round(d.x + e.clientX - d.px), Math.round(d.y + e.clientY - d.py));
          props.onMoveEnd();
        }}
      >
        ⠿
      </button>
      {item.kind === 'idea' && <span class="badge">Idea</span>}
      <p class="text">{item.text}</p>
      {item.kind === 'note' && (
        <button
          type="button"
          class="note-edit"
          disabled={props.busy}
          aria-label={`Edit note: ${name}`}
          onClick={props.onEdit}
        >
          Edit
        </button>
      )}
    </li>
  );
}

function ColourPicker({ value, onChange }: { value: Colour; onChange(c: Colour): void }) {
  const id = useId();
  return (
    <>
      <label for={id}>Colour</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value as Colour)}>
        {COLOURS.map((c) => (
          <option key={c} value={c}>
            {COLOUR_NAMES[c]}
          </option>
        ))}
      </select>
    </>
  );
}

function NoteEditor(props: {
  item: CanvasItem;
  busy: boolean;
  onSave(text: string, color: Colour): void;
  onDelete(): void;
  onCancel(): void;
}) {
  const [text, setText] = useState(props.item.text);
  const [color, setColor] = useState<Colour>(props.item.color);
  const id = useId();
  const box = useRef<HTMLTextAreaElement>(null);
  // A layout effect, not an effect: Preact runs effects after the next paint, so a key pressed
  // at once after "Edit" (Escape, or the first letter) would reach the button, not the editor.
  useLayoutEffect(() => box.current?.focus(), []);
  return (
    <form
      class="stack-form note-editor"
      aria-label="Edit note"
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.onCancel();
      }}
      onSubmit={(e) => {
        e.preventDefault();
        props.onSave(text, color);
      }}
    >
      <h3>Edit note</h3>
      <label for={id}>Note text</label>
      <textarea
        id={id}
        ref={box}
        rows={3}
        maxLength={2000}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <ColourPicker value={color} onChange={setColor} />
      <div class="actions">
        <button type="submit" class="primary" disabled={props.busy || !text.trim()}>
          Save note
        </button>
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" disabled={props.busy} onClick={props.onDelete}>
          Delete note
        </button>
      </div>
    </form>
  );
}

function NoteForm({ busy, onAdd }: { busy: boolean; onAdd(text: string, color: Colour): Promise<boolean> }) {
  const [text, setText] = useState('');
  const [color, setColor] = useState<Colour>('yellow');
  const id = useId();
  return (
    <form
      class="stack-form"
      onSubmit={async (e) => {
        e.preventDefault();
        if (await onAdd(text, color)) setText('');
      }}
    >
      <h3>Add a note</h3>
      <label for={id}>Note text</label>
      <textarea
        id={id}
        rows={2}
        maxLength={2000}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <ColourPicker value={color} onChange={setColor} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !text.trim()}>
          Add note
        </button>
      </div>
    </form>
  );
}
