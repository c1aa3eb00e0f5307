/**
 * Keys: the API keys of one workspace with their usage and limits; create (the secret shown
 * once, with a copy button), disable or enable, change the limit, delete.
 */
import { useState } from 'preact/hooks';
import { describeError, fieldError, get, request } from '../api';
import { usd, utc } from '../format';
import { useLoad } from '../load';
import { Empty, FormError, Status } from '../status';
import { Table } from '../table';
import type { Key, Workspace } from '../types';
import { LimitEditor, limitBody } from './key-limit';
import { LIMIT_RESETS, SelectField, type Choice } from '../fields';
import { NewSecret } from './new-secret';

async function loadKeys(workspace: string) {
  const scope = workspace ? `&workspace_id=${encodeURIComponent(workspace)}` : '';
  const [workspaces, keys] = await Promise.all([
    get<{ data: Workspace[] }>('/api/v1/workspaces?limit=100'),
    get<{ data: Key[] }>(`/api/v1/keys?include_disabled=true${scope}`),
  ]);
  return { workspaces: workspaces.data, keys: keys.data };
}

/** The Keys page. */
export function Keys() {
  const [workspace, setWorkspace] = useState('');
  const [load, reload] = useLoad(() => loadKeys(workspace), [workspace]);
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  return (
    <>
      <h1 tabIndex={-1}>Keys</h1>
      {secret && <NewSecret name={secret.name} secret={secret.key} onDone={() => setSecret(null)} />}
      {load.state !== 'ready' ? (
        <Status load={load} />
      ) : (
        <>
          <div class="inline">
            <SelectField
              id="key-workspace"
              label="Workspace"
              value={workspace}
              choices={load.data.workspaces.map((w, i): Choice => [i === 0 ? '' : w.id, `${w.name} (${w.slug})`])}
              onChange={setWorkspace}
            />
          </div>
          <CreateKey
            workspace={workspace}
            onCreated={(name, key) => {
              setSecret({ name, key });
              reload();
            }}
          />
          <KeyList keys={load.data.keys} changed={reload} />
        </>
      )}
    </>
  );
}

function CreateKey({ workspace, onCreated }: { workspace: string; onCreated: (name: string, secret: string) => void }) {
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [reset, setReset] = useState('');
  const [error, setError] = useState<unknown>(null);
  // Never rejects (a failure is shown in the form), so the form does not wait for it.
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const body = { name, ...limitBody(limit, reset), ...(workspace ? { workspace_id: workspace } : {}) };
      const created = await request<{ key: string; data: Key }>('POST', '/api/v1/keys', body);
      setName('');
      setLimit('');
      onCreated(created.data.name, created.key);
    } catch (err) {
      setError(err);
    }
  };
  const limitError = fieldError(error, 'limit');
  return (
    <form class="card" onSubmit={(e) => void submit(e)} aria-labelledby="create-key">
      <h2 id="create-key">Create a key</h2>
      <div class="row">
        <div class="field">
          <label for="new-key-name">Name</label>
          <input
            id="new-key-name"
            required
            maxLength={200}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="new-key-limit">Spending limit in USD (optional)</label>
          <input
            id="new-key-limit"
            type="number"
            min="0"
            step="any"
            inputMode="decimal"
            value={limit}
            onInput={(e) => setLimit(e.currentTarget.value)}
            aria-invalid={limitError ? true : undefined}
            aria-describedby={limitError ? 'new-key-limit-error' : undefined}
          />
          <FormError id="new-key-limit-error" message={limitError} />
        </div>
        <SelectField id="new-key-reset" label="Limit resets" value={reset} choices={LIMIT_RESETS} onChange={setReset} />
      </div>
      <button type="submit">Create key</button>
      <FormError message={error && !limitError ? describeError(error) : null} />
    </form>
  );
}

function limitText(k: Key): string {
  if (k.limit === null) return 'none';
  return `${usd(k.limit)} ${k.limit_reset ?? 'lifetime'}, ${usd(k.limit_remaining)} left`;
}

function KeyList({ keys, changed }: { keys: Key[]; changed: () => void }) {
  const [error, setError] = useState<string | null>(null);
  // Never rejects (a failure is shown above the table), so the buttons do not wait for it.
  const act = async (call: () => Promise<unknown>) => {
    setError(null);
    try {
      await call();
      changed();
    } catch (err) {
      setError(describeError(err));
    }
  };
  if (keys.length === 0) return <Empty>This workspace has no keys yet. Create one above.</Empty>;
  return (
    <section aria-labelledby="key-list">
      <h2 id="key-list">Keys in this workspace</h2>
      <FormError message={error} />
      <Table
        caption="Keys, newest first, with usage in USD"
        rows={keys}
        rowKey={(k) => k.hash}
        columns={[
          { label: 'Name', cell: (k) => <span class="name">{k.name}</span> },
          { label: 'Key', cell: (k) => <code class="key-label">{k.label}</code> },
          { label: 'Status', cell: (k) => (k.disabled ? 'disabled' : 'active') },
          { label: 'Today', cell: (k) => usd(k.usage_daily), numeric: true },
          { label: 'This month', cell: (k) => usd(k.usage_monthly), numeric: true },
          { label: 'Total', cell: (k) => usd(k.usage), numeric: true },
          { label: 'Limit', cell: (k) => <LimitEditor keyObj={k} text={limitText(k)} act={act} /> },
          { label: 'Created', cell: (k) => utc(k.created_at) },
          { label: 'Actions', cell: (k) => <KeyActions k={k} act={act} /> },
        ]}
      />
    </section>
  );
}

function KeyActions({ k, act }: { k: Key; act: (call: () => Promise<unknown>) => Promise<void> }) {
  const [confirming, setConfirming] = useState(false);
  const path = `/api/v1/keys/${k.hash}`;
  return (
    <div class="actions">
      <button
        type="button"
        onClick={() => void act(() => request('PATCH', path, { disabled: !k.disabled }))}
        aria-label={`${k.disabled ? 'Enable' : 'Disable'} ${k.name}`}
      >
        {k.disabled ? 'Enable' : 'Disable'}
      </button>
      {confirming ? (
        <>
          <button
            type="button"
            class="danger"
            onClick={() => void act(() => request('DELETE', path))}
            aria-label={`Confirm: delete ${k.name}`}
          >
            Confirm delete
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </>
      ) : (
        <button type="button" class="danger" onClick={() => setConfirming(true)} aria-label={`Delete ${k.name}`}>
          Delete
        </button>
      )}
    </div>
  );
}
