/**
 * Overview: spend and requests today / 7 days / 30 days, daily spend by model, latency by
 * provider, the recent upstream error rate and the top keys by spend, from three analytics
 * queries and the provider list, sent together.
 */
import { DAY_MS, dayStart, query, range } from '../analytics';
import { bucketSeconds, bucketStarts } from '../buckets';
import { Chart } from '../chart';
import { Figure } from '../figure';
import { errorRate, ms, num, usd, usdTicks } from '../format';
import { useLoad } from '../load';
import { pivot } from '../series';
import { Empty, Status } from '../status';
import { Table } from '../table';
import { get } from '../api';
import type { Provider, Row } from '../types';

interface Totals {
  spend: number;
  requests: number;
}

function totalsSince(rows: Row[], sinceMs: number): Totals {
  const inWindow = rows.filter((r) => Date.parse(String(r.date__day)) >= sinceMs);
  return {
    spend: inWindow.reduce((s, r) => s + (Number(r.total_usage) || 0), 0),
    requests: inWindow.reduce((s, r) => s + (Number(r.request_count) || 0), 0),
  };
}

async function loadOverview() {
  const now = Date.now();
  const today = dayStart(now);
  const month = range(today - 29 * DAY_MS, now);
  const [daily, latency, topKeys, providers] = await Promise.all([
    query({ metrics: ['total_usage', 'request_count'], dimensions: ['model'], granularity: 'day', time_range: month }),
    query({
      metrics: ['request_count', 'p50_latency', 'p99_latency'],
      dimensions: ['provider'],
      time_range: range(today - 6 * DAY_MS, now),
      order_by: { field: 'request_count', direction: 'desc' },
    }),
    query({
      metrics: ['total_usage', 'request_count'],
      dimensions: ['api_key_id'],
      time_range: month,
      order_by: { field: 'total_usage', direction: 'desc' },
      limit: 5,
    }),
    get<{ data: Provider[] }>('/api/v1/providers'),
  ]);
  const recent = providers.data.reduce(
    (a, p) => ({ attempts: a.attempts + p.recent.attempts, failures: a.failures + p.recent.failures }),
    { attempts: 0, failures: 0 },
  );
  const windowMinutes = providers.data[0]?.recent.window_minutes ?? 60;
  return { today, daily, latency, topKeys, errors: { ...recent, windowMinutes } };
}

/** The Overview page. */
export function Overview() {
  const [load] = useLoad(loadOverview, []);
  return (
    <>
      <h1 tabIndex={-1}>Overview</h1>
      {load.state !== 'ready' ? <Status load={load} /> : <OverviewBody {...load.data} />}
    </>
  );
}

function OverviewBody({ today, daily, latency, topKeys, errors }: Awaited<ReturnType<typeof loadOverview>>) {
  const periods: Array<[string, Totals]> = [
    ['Today', totalsSince(daily, today)],
    ['7 days', totalsSince(daily, today - 6 * DAY_MS)],
    ['30 days', totalsSince(daily, today - 29 * DAY_MS)],
  ];
  return (
    <>
      <section aria-labelledby="totals">
        <h2 id="totals">Spend and requests (UTC days)</h2>
        <dl class="figures">
          {periods.map(([name, t]) => (
            <Figure key={`s${name}`} label={`Spend, ${name.toLowerCase()}`} value={usd(t.spend)} />
          ))}
          {periods.map(([name, t]) => (
            <Figure key={`r${name}`} label={`Requests, ${name.toLowerCase()}`} value={num(t.requests)} />
          ))}
        </dl>
      </section>
      <section aria-labelledby="daily">
        <h2 id="daily">Daily spend by model, last 30 days</h2>
        {daily.length === 0 ? (
          <Empty>No usage in the last 30 days. Requests through the gateway appear here within a few seconds.</Empty>
        ) : (
          <Chart
            data={pivot(daily, 'date__day', ['model'], 'total_usage', {
              buckets: bucketStarts(today - 29 * DAY_MS, today + DAY_MS, 'day'),
              step: bucketSeconds('day'),
              fill: 0,
            })}
            label="Spend per UTC day, one line per model"
            format={usd}
            ticks={usdTicks}
          />
        )}
      </section>
      <section aria-labelledby="latency">
        <h2 id="latency">Latency by provider, last 7 days</h2>
        {latency.length === 0 ? (
          <Empty>No requests in the last 7 days.</Empty>
        ) : (
          <Table
            caption="Latency percentiles per provider"
            rows={latency}
            rowKey={(r) => String(r.provider)}
            columns={[
              { label: 'Provider', cell: (r) => r.provider ?? '(none)' },
              { label: 'Requests', cell: (r) => num(r.request_count as number), numeric: true },
              { label: 'p50', cell: (r) => ms(r.p50_latency as number | null), numeric: true },
              { label: 'p99', cell: (r) => ms(r.p99_latency as number | null), numeric: true },
            ]}
          />
        )}
        <dl class="figures small">
          <Figure
            label={`Upstream error rate, last ${errors.windowMinutes} min`}
            value={errorRate(errors.failures, errors.attempts)}
          />
        </dl>
        <p class="help">
          Failed upstream attempts over all providers; the Providers page breaks them down per endpoint.
        </p>
      </section>
      <section aria-labelledby="top-keys">
        <h2 id="top-keys">Top keys by spend, last 30 days</h2>
        {topKeys.length === 0 ? (
          <Empty>No key has spent anything in the last 30 days.</Empty>
        ) : (
          <Table
            caption="The five keys that spent most"
            rows={topKeys}
            rowKey={(r) => String(r.api_key_id)}
            columns={[
              { label: 'Key', cell: (r) => r.api_key_id },
              { label: 'Spend', cell: (r) => usd(r.total_usage as number), numeric: true },
              { label: 'Requests', cell: (r) => num(r.request_count as number), numeric: true },
            ]}
          />
        )}
      </section>
    </>
  );
}
