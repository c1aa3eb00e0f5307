/** Changing a key's spending limit in place, from its row in the Keys table. */
import { useState } from 'preact/hooks';
import { request } from '../api';
import { LIMIT_RESETS, SelectField } from '../fields';
import type { Key } from '../types';

/** The `limit` / `limit_reset` fields of a key body from the form's text (empty = no limit). */
export function limitBody(limit: string, reset: string): { limit: number | null; limit_reset?: string | null } {
  const value = limit.trim() === '' ? null : Number(limit);
  return value === null ? { limit: null } : { limit: value, limit_reset: reset || null };
}

/** The limit as text, and a button that turns it into a small form. */
export function LimitEditor({
  keyObj: k,
  text,
  act,
}: {
  keyObj: Key;
  text: string;
  act: (call: () => Promise<unknown>) => Promise<void>;
}) {
  const [editing, setEditing] = useState(false);
  const [value, setValue] = useState(k.limit === null ? '' : String(k.limit));
  const [reset, setReset] = useState(k.limit_reset ?? '');
  if (!editing) {
    return (
      <span class="limit">
        {text}{' '}
        <button
          type="button"
          class="link"
          onClick={() => setEditing(true)}
          aria-label={`Change the limit of ${k.name}`}
        >
          Change
        </button>
      </span>
    );
  }
  const id = `limit-${k.hash.slice(0, 12)}`;
  // Never rejects (`act` shows a failure), so the form does not wait for it.
  const save = async (e: Event) => {
    e.preventDefault();
    await act(() => request('PATCH', `/api/v1/keys/${k.hash}`, limitBody(value, reset)));
    setEditing(false);
  };
  return (
    <form class="limit-form" onSubmit={(e) => void save(e)}>
      <label for={id}>Limit in USD for {k.name} (empty: none)</label>
      <input
        id={id}
        type="number"
        min="0"
        step="any"
        inputMode="decimal"
        value={value}
        onInput={(e) => setValue(e.currentTarget.value)}
      />
      <SelectField id={`${id}-reset`} label="Resets" value={reset} choices={LIMIT_RESETS} onChange={setReset} />
      <button type="submit">Save</button>
      <button type="button" onClick={() => setEditing(false)}>
        Cancel
      </button>
    </form>
  );
}
