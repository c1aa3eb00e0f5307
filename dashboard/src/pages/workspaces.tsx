/**
 * Workspaces: each workspace's budgets as bars (set or remove one; the server's ordering rule
 * error is shown next to the limit field) and its members.
 */
import { useState } from 'preact/hooks';
import { describeError, fieldError, get, request } from '../api';
import { useLoad } from '../load';
import { Empty, FormError, Status } from '../status';
import type { Budget, Interval, Member, Workspace } from '../types';
import { BudgetBar } from './budget-bar';
import { SelectField, type Choice } from '../fields';

const INTERVALS: Interval[] = ['daily', 'weekly', 'monthly', 'lifetime'];

interface Detail {
  workspace: Workspace;
  budgets: Budget[];
  members: Member[];
  memberCount: number;
}

/** Every workspace with its budgets (and where they stand) and first members, in one call. */
async function loadWorkspaces(): Promise<Detail[]> {
  type Listed = Workspace & { budgets: Budget[]; members: { data: Member[]; total_count: number } };
  const { data } = await get<{ data: Listed[] }>('/api/v1/workspaces?limit=100&include=budgets,members');
  return data.map(({ budgets, members, ...workspace }) => ({
    workspace,
    budgets,
    members: members.data,
    memberCount: members.total_count,
  }));
}

/** The Workspaces page. */
export function Workspaces() {
  const [load, reload] = useLoad(loadWorkspaces, []);
  return (
    <>
      <h1 tabIndex={-1}>Workspaces</h1>
      {load.state !== 'ready' ? (
        <Status load={load} />
      ) : load.data.length === 0 ? (
        <Empty>No workspaces.</Empty>
      ) : (
        load.data.map((d) => <WorkspaceCard key={d.workspace.id} detail={d} changed={reload} />)
      )}
    </>
  );
}

function WorkspaceCard({ detail, changed }: { detail: Detail; changed: () => void }) {
  const { workspace, budgets, members, memberCount } = detail;
  const [error, setError] = useState<string | null>(null);
  const ordered = INTERVALS.map((i) => budgets.find((b) => b.reset_interval === i)).filter(
    (b): b is Budget => b !== undefined,
  );
  // Never rejects (a failure is shown in the card), so the button does not wait for it.
  const remove = async (interval: Interval) => {
    setError(null);
    try {
      await request('DELETE', `/api/v1/workspaces/${encodeURIComponent(workspace.id)}/budgets/${interval}`);
      changed();
    } catch (err) {
      setError(describeError(err));
    }
  };
  const headingId = `ws-${workspace.id}`;
  return (
    <section class="card workspace" aria-labelledby={headingId} data-slug={workspace.slug}>
      <h2 id={headingId}>
        {workspace.name} <span class="muted">({workspace.slug})</span>
      </h2>
      {workspace.description && <p>{workspace.description}</p>}
      <h3>Budgets</h3>
      <FormError message={error} />
      {ordered.length === 0 ? (
        <Empty>No budgets: requests in this workspace are not limited by one.</Empty>
      ) : (
        <ul class="budgets">
          {ordered.map((b) => (
            <BudgetBar
              key={b.reset_interval}
              budget={b}
              workspace={workspace.name}
              onRemove={() => void remove(b.reset_interval)}
            />
          ))}
        </ul>
      )}
      <SetBudget workspace={workspace} changed={changed} />
      <h3>Members ({memberCount})</h3>
      {members.length === 0 ? (
        <Empty>No members.</Empty>
      ) : (
        <ul class="members">
          {members.map((m) => (
            <li key={m.user_id}>
              {m.user_id} <span class="muted">({m.role})</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function SetBudget({ workspace, changed }: { workspace: Workspace; changed: () => void }) {
  const [interval, chooseInterval] = useState<Interval>('daily');
  const [limit, setLimit] = useState('');
  const [error, setError] = useState<unknown>(null);
  const id = `budget-${workspace.id}`;
  // Never rejects (a failure is shown in the form), so the form does not wait for it.
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await request('PUT', `/api/v1/workspaces/${encodeURIComponent(workspace.id)}/budgets/${interval}`, {
        limit_usd: Number(limit),
      });
      setLimit('');
      changed();
    } catch (err) {
      setError(err);
    }
  };
  const limitError = fieldError(error, 'limit_usd');
  return (
    <form class="set-budget" onSubmit={(e) => void submit(e)} aria-label={`Set a budget for ${workspace.name}`}>
      <SelectField
        id={`${id}-interval`}
        label="Interval"
        value={interval}
        choices={INTERVALS.map((i): Choice => [i, i])}
        onChange={(v) => chooseInterval(v as Interval)}
      />
      <div class="field">
        <label for={`${id}-limit`}>Limit in USD</label>
        <input
          id={`${id}-limit`}
          type="number"
          min="0.000000001"
          step="any"
          inputMode="decimal"
          required
          value={limit}
          onInput={(e) => setLimit(e.currentTarget.value)}
          aria-invalid={limitError ? true : undefined}
          aria-describedby={limitError ? `${id}-limit-error` : undefined}
        />
        <FormError id={`${id}-limit-error`} message={limitError} />
      </div>
      <button type="submit">Set budget</button>
      <FormError message={error && !limitError ? describeError(error) : null} />
    </form>
  );
}
