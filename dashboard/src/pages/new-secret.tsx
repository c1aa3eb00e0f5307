/** A new key's secret, shown once with a copy button: the gateway keeps only its hash. */
import { useEffect, useRef, useState } from 'preact/hooks';

/** The panel; `onDone` hides it for good. */
export function NewSecret({ name, secret, onDone }: { name: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.focus(), []);
  // Never rejects (a refused copy selects the key instead), so the button does not wait for it.
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied to the clipboard.');
    } catch {
      field.current?.select();
      setCopied('Copying was refused by the browser: the key is selected, press Ctrl+C (or ⌘C).');
    }
  };
  return (
    <section class="card secret" aria-labelledby="new-secret">
      <h2 id="new-secret">Key “{name}” created</h2>
      <p>Copy the key now. It is shown only this once; the gateway stores only its hash.</p>
      <label for="secret-value">Secret key</label>
      <div class="row">
        <input id="secret-value" ref={field} readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status">{copied}</p>
    </section>
  );
}
