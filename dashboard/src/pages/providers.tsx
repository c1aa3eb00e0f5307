/**
 * Providers: each provider's endpoints with their circuit state, recent error rate and the
 * models they serve, and the last 24 hours' requests and latency per provider (one analytics
 * query, sent alongside the provider list). Providers needing attention come first; those
 * without a key are greyed and last (they serve nothing, so their circuits say nothing).
 */
import { get } from '../api';
import { DAY_MS, query, range } from '../analytics';
import { Figure } from '../figure';
import { errorRate, ms, num } from '../format';
import { useLoad } from '../load';
import { Empty, Status } from '../status';
import { Table } from '../table';
import type { Endpoint, Provider, Row } from '../types';

async function loadProviders() {
  const now = Date.now();
  const [providers, stats] = await Promise.all([
    get<{ data: Provider[] }>('/api/v1/providers'),
    query({
      metrics: ['request_count', 'p50_latency', 'p99_latency'],
      dimensions: ['provider'],
      time_range: range(now - DAY_MS, now),
    }),
  ]);
  return { providers: providers.data, stats };
}

/** Circuit states, worst first. */
const CIRCUIT_RANK: Record<Endpoint['circuit']['state'], number> = { open: 0, half_open: 1, unknown: 2, closed: 2 };

function worstCircuit(p: Provider): number {
  return Math.min(2, ...p.endpoints.map((e) => CIRCUIT_RANK[e.circuit.state]));
}

function errorShare(p: Provider): number {
  return p.recent.attempts > 0 ? p.recent.failures / p.recent.attempts : 0;
}

/** Configured before unconfigured; then open, half-open, closed circuits; then the higher recent error rate. */
export function byAttention(a: Provider, b: Provider): number {
  return (
    Number(!a.configured) - Number(!b.configured) || worstCircuit(a) - worstCircuit(b) || errorShare(b) - errorShare(a)
  );
}

/**
 * The analytics row of `p`: rows carry the provider's display name (what usage records store,
 * "OpenAI"), not its slug.
 */
function statsOf(stats: Row[], p: Provider): Row | undefined {
  return stats.find((s) => s.provider === p.name) ?? stats.find((s) => s.provider === p.slug);
}

const STATE_TEXT: Record<Endpoint['circuit']['state'], string> = {
  closed: 'closed (healthy)',
  half_open: 'half-open (testing)',
  open: 'open (skipped)',
  unknown: 'unknown',
};

/** The Providers page. */
export function Providers() {
  const [load] = useLoad(loadProviders, []);
  return (
    <>
      <h1 tabIndex={-1}>Providers</h1>
      {load.state !== 'ready' ? (
        <Status load={load} />
      ) : load.data.providers.length === 0 ? (
        <Empty>No providers in the catalog.</Empty>
      ) : (
        <>
          <p class="help">
            Error rates are the share of this organization's upstream attempts that failed in the last{' '}
            {load.data.providers[0]?.recent.window_minutes ?? 60} minutes; requests and latency percentiles cover the
            last 24 hours of answered requests.
          </p>
          {[...load.data.providers].sort(byAttention).map((p) => (
            <ProviderCard key={p.slug} provider={p} stats={statsOf(load.data.stats, p)} />
          ))}
        </>
      )}
    </>
  );
}

function ProviderCard({ provider: p, stats }: { provider: Provider; stats: Row | undefined }) {
  const id = `provider-${p.slug}`;
  return (
    <section
      class={p.configured ? 'card provider' : 'card provider unconfigured'}
      aria-labelledby={id}
      data-slug={p.slug}
    >
      <h2 id={id}>
        {p.name} <span class="muted">({p.slug})</span>
      </h2>
      <dl class="figures small">
        <Figure label="Configured" value={p.configured ? 'yes' : 'no key set'} />
        <Figure label="Error rate" value={errorRate(p.recent.failures, p.recent.attempts)} />
        <Figure label="Requests, 24 h" value={num((stats?.request_count as number | undefined) ?? 0)} />
        <Figure label="p50 latency" value={ms(stats?.p50_latency as number | null | undefined)} />
        <Figure label="p99 latency" value={ms(stats?.p99_latency as number | null | undefined)} />
      </dl>
      <Table
        caption={`Endpoints of ${p.name}`}
        rows={p.endpoints}
        rowKey={(e) => e.model}
        columns={[
          {
            label: 'Model',
            cell: (e) => (e.model_name && e.model_name !== e.model ? `${e.model_name} (${e.model})` : e.model),
          },
          {
            label: 'Circuit',
            cell: (e) =>
              p.configured ? (
                <span class={`state ${e.circuit.state}`}>{STATE_TEXT[e.circuit.state]}</span>
              ) : (
                <span class="state unconfigured">not configured (no key)</span>
              ),
          },
          { label: 'Consecutive failures', cell: (e) => num(e.circuit.consecutive_failures), numeric: true },
          { label: 'Attempts', cell: (e) => num(e.recent.attempts), numeric: true },
          { label: 'Error rate', cell: (e) => errorRate(e.recent.failures, e.recent.attempts), numeric: true },
          { label: 'Mean latency', cell: (e) => ms(e.recent.avg_latency_ms), numeric: true },
        ]}
      />
    </section>
  );
}
