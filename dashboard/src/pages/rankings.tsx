/** Rankings: the top models by tokens over time, from the rankings dataset (docs/rankings.md). */
import { useState } from 'preact/hooks';
import { get } from '../api';
import { Chart } from '../chart';
import { num, short, utc } from '../format';
import { useLoad } from '../load';
import { pivot } from '../series';
import { Empty, Status } from '../status';
import { Table } from '../table';
import type { RankingsAnswer, Row } from '../types';
import { SelectField, type Choice } from '../fields';

const PERIODS = ['day', 'week', 'month'] as const;
type Period = (typeof PERIODS)[number];

function loadRankings(period: Period) {
  return get<RankingsAnswer>(`/api/v1/datasets/rankings-daily?period=${period}`);
}

/** The Rankings page. */
export function Rankings() {
  const [period, setPeriod] = useState<Period>('day');
  const [load] = useLoad(() => loadRankings(period), [period]);
  return (
    <>
      <h1 tabIndex={-1}>Rankings</h1>
      <div class="inline">
        <SelectField id="period" label="Period" value={period} choices={PERIODS.map((p): Choice => [p, p])} onChange={(v) => setPeriod(v as Period)} />
      </div>
      {load.state !== 'ready' ? <Status load={load} /> : <RankingsBody answer={load.data} period={period} />}
    </>
  );
}

function RankingsBody({ answer, period }: { answer: RankingsAnswer; period: Period }) {
  const rows: Row[] = answer.data.map((r) => ({ date: `${r.date}T00:00:00Z`, model: r.model_permaslug, tokens: Number(r.total_tokens) }));
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(String(r.model), (totals.get(String(r.model)) ?? 0) + (r.tokens as number));
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]);
  const neverRan = Date.parse(answer.meta.as_of) === 0;
  return (
    <>
      <p class="help">
        Tokens per {period} from {answer.meta.start_date} to {answer.meta.end_date} (UTC).{' '}
        {neverRan ? 'The rankings rollup has not run yet.' : `Data as of ${utc(answer.meta.as_of)}.`}
      </p>
      {rows.length === 0 ? (
        <Empty>No model was used in this window.</Empty>
      ) : (
        <>
          <Chart data={pivot(rows, 'date', ['model'], 'tokens', { fill: 0 })} label={`Tokens per ${period}, one line per model`} format={short} />
          <Table
            caption="Models by tokens over the window"
            rows={ranked}
            rowKey={([m]) => m}
            columns={[
              { label: 'Rank', cell: ([m]) => (m === 'other' ? '—' : ranked.filter(([n]) => n !== 'other').findIndex(([n]) => n === m) + 1), numeric: true },
              { label: 'Model', cell: ([m]) => m },
              { label: 'Tokens', cell: ([, t]) => num(t), numeric: true },
              { label: 'Share', cell: ([, t]) => `${all ? ((t / all) * 100).toFixed(1) : '0.0'} %`, numeric: true },
            ]}
          />
        </>
      )}
    </>
  );
}
