import { useState } from 'preact/hooks';

/**
 * "Copy" for a secret or a snippet: navigator.clipboard where the browser allows it; where it
 * does not (an insecure origin, a denied permission), says so and selects the text shown next to
 * it so the person can copy it by hand.
 */
export function CopyButton({ text, label, target }: { text: string; label: string; target: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setSaid('Copied.');
    } catch {
      const el = document.getElementById(target);
      if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) el.select();
      else if (el) getSelection()?.selectAllChildren(el);
      setSaid('This browser did not allow copying: the text is selected, press Ctrl+C (⌘C on a Mac).');
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy} aria-label={label}>
        Copy
      </button>
      <span role="status" class="copy-said">
        {said}
      </span>
    </span>
  );
}
