/**
 * Usage explorer: a form over the analytics query (metrics, up to two dimensions, filters,
 * granularity, range) giving a chart, a table and a CSV download of the rows.
 */
import { useMemo, useState } from 'preact/hooks';
import { describeError, get } from '../api';
import { DAY_MS, dayStart, query, range } from '../analytics';
import { bucketSeconds, bucketStarts, type Granularity } from '../buckets';
import { Chart } from '../chart';
import { toCsv, downloadText } from '../csv';
import { axisLabels, byFormat } from '../format';
import { useLoad } from '../load';
import { pivot } from '../series';
import { Empty, FormError, Status } from '../status';
import { Table } from '../table';
import type { AnalyticsMeta, Row } from '../types';
import { FilterRows, dimensionChoices, filterBody, type Filter } from './usage-filters';
import { SelectField, type Choice } from '../fields';

type Meta = AnalyticsMeta['data'];

/** What the form holds; the query body is built from it. */
interface Form {
  metrics: string[];
  dimensions: [string, string];
  granularity: string;
  start: string;
  end: string;
  filters: Filter[];
}

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** A `datetime-local` value (UTC, to the minute). */
function isoMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16);
}

/** Minute buckets need a window of at most 3 hours (the query's rule), so their range is picked to the minute. */
function byMinute(form: Pick<Form, 'granularity'>): boolean {
  return form.granularity === 'minute';
}

const MINUTE_MS = 60_000;

function initialForm(): Form {
  const today = dayStart(Date.now());
  return {
    metrics: ['total_usage', 'request_count'],
    dimensions: ['model', ''],
    granularity: 'day',
    start: isoDay(today - 6 * DAY_MS),
    end: isoDay(today),
    filters: [],
  };
}

/**
 * The form with another granularity, its range converted: to the last hour (to the minute) when
 * switching to minutes, back to whole UTC days when switching away.
 */
function withGranularity(form: Form, granularity: string): Form {
  const next = { ...form, granularity };
  if (byMinute(next) && !byMinute(form)) {
    const end = Math.ceil(Date.now() / MINUTE_MS) * MINUTE_MS;
    return { ...next, start: isoMinute(end - 60 * MINUTE_MS), end: isoMinute(end) };
  }
  if (!byMinute(next) && byMinute(form)) return { ...next, start: form.start.slice(0, 10), end: form.end.slice(0, 10) };
  return next;
}

/** The window in ms: whole UTC days from the start date to the end date inclusive, or minutes as picked. */
function windowOf(form: Form): { start: number; end: number } {
  if (byMinute(form)) return { start: Date.parse(`${form.start}:00Z`), end: Date.parse(`${form.end}:00Z`) };
  return { start: Date.parse(`${form.start}T00:00:00Z`), end: Date.parse(`${form.end}T00:00:00Z`) + DAY_MS };
}

/** The query body of `form`. */
function body(form: Form): Record<string, unknown> {
  const dims = form.dimensions.filter(Boolean);
  const { start, end } = windowOf(form);
  return {
    metrics: form.metrics,
    ...(dims.length ? { dimensions: dims } : {}),
    ...(form.granularity ? { granularity: form.granularity } : {}),
    ...(form.filters.length ? { filters: filterBody(form.filters) } : {}),
    time_range: range(start, end),
  };
}

/** What the form can offer and the default query's answer, fetched together. */
async function loadExplorer(): Promise<{ meta: Meta; first: Answer }> {
  const form = initialForm();
  const [meta, rows] = await Promise.all([get<AnalyticsMeta>('/api/v1/analytics/meta'), query(body(form))]);
  return { meta: meta.data, first: { form, rows } };
}

/** The Usage explorer page: the form, with the default query (last 7 days by model) already answered. */
export function Usage() {
  const [load] = useLoad(loadExplorer, []);
  return (
    <>
      <h1 tabIndex={-1}>Usage explorer</h1>
      {load.state !== 'ready' ? <Status load={load} /> : <Explorer meta={load.data.meta} first={load.data.first} />}
    </>
  );
}

interface Answer {
  form: Form;
  rows: Row[];
}

function Explorer({ meta, first }: { meta: Meta; first: Answer }) {
  const [form, setForm] = useState<Form>(first.form);
  const [answer, setAnswer] = useState<Answer | null>(first);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // Never rejects (a failure is shown with the form), so the form does not wait for it.
  const run = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      setAnswer({ form, rows: await query(body(form)) });
    } catch (err) {
      setError(err);
      setAnswer(null);
    } finally {
      setBusy(false);
    }
  };
  const toggle = (name: string, on: boolean) =>
    setForm({ ...form, metrics: on ? [...form.metrics, name] : form.metrics.filter((m) => m !== name) });
  const setDim = (i: 0 | 1, value: string) => {
    const dims: [string, string] = [...form.dimensions];
    dims[i] = value;
    setForm({ ...form, dimensions: dims });
  };
  return (
    <>
      <form class="card explorer" onSubmit={(e) => void run(e)} aria-label="Analytics query">
        <fieldset class="metrics">
          <legend>Metrics</legend>
          {meta.metrics.map((m) => (
            <label key={m.name} class="check">
              <input
                type="checkbox"
                checked={form.metrics.includes(m.name)}
                onChange={(e) => toggle(m.name, e.currentTarget.checked)}
              />
              {m.display_label}
            </label>
          ))}
        </fieldset>
        <div class="row">
          {([0, 1] as const).map((i) => (
            <SelectField
              key={i}
              id={`dim-${i}`}
              label={i === 0 ? 'Group by' : 'Then by'}
              value={form.dimensions[i]}
              choices={[['', '(none)'], ...dimensionChoices(meta)]}
              onChange={(v) => setDim(i, v)}
            />
          ))}
          <SelectField
            id="granularity"
            label="Granularity"
            value={form.granularity}
            choices={[['', '(totals)'], ...meta.granularities.map((g): Choice => [g.name, g.display_label])]}
            onChange={(v) => setForm(withGranularity(form, v))}
          />
          <RangeFields form={form} setForm={setForm} />
        </div>
        <FilterRows meta={meta} filters={form.filters} onChange={(filters) => setForm({ ...form, filters })} />
        <button type="submit" disabled={busy || form.metrics.length === 0}>
          {busy ? 'Running…' : 'Run query'}
        </button>
        {form.metrics.length === 0 && <p class="help">Choose at least one metric.</p>}
        <FormError message={error ? describeQueryError(error) : null} />
      </form>
      {answer && <Result meta={meta} answer={answer} />}
    </>
  );
}

/** From and to: UTC days, or for minute buckets UTC times (at most 3 hours apart). */
function RangeFields({ form, setForm }: { form: Form; setForm: (f: Form) => void }) {
  const minutes = byMinute(form);
  const type = minutes ? 'datetime-local' : 'date';
  return (
    <>
      <div class="field">
        <label for="start">{minutes ? 'From (UTC time)' : 'From (UTC day)'}</label>
        <input
          id="start"
          key={type}
          type={type}
          required
          value={form.start}
          onInput={(e) => setForm({ ...form, start: e.currentTarget.value })}
        />
      </div>
      <div class="field">
        <label for="end">
          {minutes ? 'To (UTC time, excluded; at most 3 hours after From)' : 'To (UTC day, included)'}
        </label>
        <input
          id="end"
          key={type}
          type={type}
          required
          value={form.end}
          onInput={(e) => setForm({ ...form, end: e.currentTarget.value })}
        />
      </div>
    </>
  );
}

function describeQueryError(err: unknown): string {
  const issues = (err as { metadata?: { errors?: Array<{ path?: string; message?: string }> } }).metadata?.errors;
  if (Array.isArray(issues) && issues.length > 0)
    return issues.map((i) => `${i.path ?? ''} ${i.message ?? ''}`.trim()).join('; ');
  return describeError(err);
}

function Result({ meta, answer }: { meta: Meta; answer: Answer }) {
  const { form, rows } = answer;
  const dims = form.dimensions.filter(Boolean);
  const timeKey = form.granularity ? `date__${form.granularity}` : null;
  const columns = [...(timeKey ? [timeKey] : []), ...dims, ...form.metrics];
  const formatOf = (name: string) => meta.metrics.find((m) => m.name === name)?.display_format ?? 'number';
  const first = form.metrics[0] as string;
  // Built once per answer: the chart is redrawn only when its data changes, not while the form is edited.
  const chart = useMemo(() => {
    if (!timeKey) return null;
    const g = form.granularity as Granularity;
    const { start, end } = windowOf(form);
    const fill = meta.metrics.find((m) => m.name === first)?.is_rate ? null : 0;
    return {
      data: pivot(rows, timeKey, dims, first, { fill, buckets: bucketStarts(start, end, g), step: bucketSeconds(g) }),
      format: (v: number) => byFormat(formatOf(first), v),
      ticks: axisLabels(formatOf(first)),
    };
  }, [answer]);
  const labelOf = (name: string) =>
    meta.metrics.find((m) => m.name === name)?.display_label ??
    meta.dimensions.find((d) => d.name === name)?.display_label ??
    (name === timeKey ? 'Bucket start (UTC)' : name);
  return (
    <section aria-labelledby="result">
      <h2 id="result">Result: {rows.length} rows</h2>
      {rows.length === 0 ? (
        <Empty>No usage matches this query.</Empty>
      ) : (
        <>
          {chart ? (
            <Chart
              data={chart.data}
              label={`${labelOf(first)} per ${form.granularity}${dims.length ? `, one line per ${dims.map(labelOf).join(' and ')}` : ''}`}
              format={chart.format}
              ticks={chart.ticks}
            />
          ) : (
            <p class="help">Choose a granularity to chart the values over time.</p>
          )}
          <button type="button" onClick={() => downloadText('switchyard-usage.csv', toCsv(columns, rows))}>
            Download CSV
          </button>
          <Table
            caption="Query rows"
            rows={rows}
            rowKey={(_r, i) => String(i)}
            columns={columns.map((c) => ({
              label: labelOf(c),
              numeric: form.metrics.includes(c),
              cell: (r: Row) =>
                form.metrics.includes(c) ? byFormat(formatOf(c), r[c] as number | null) : (r[c] ?? '(none)'),
            }))}
          />
        </>
      )}
    </section>
  );
}
