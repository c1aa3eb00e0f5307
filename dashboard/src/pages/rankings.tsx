/**
 * Rankings: the top models by tokens over time, from the rankings dataset (docs/rankings.md).
 * The dataset's default window ends with the last completed UTC day, so on a fresh install all
 * traffic is "today" and the default answer is empty; in the organization scope the page
 * therefore asks for today too (`end_date` = today, which the rollup covers up to its last run)
 * unless told not to. The installation scope publishes completed days only, so there the page
 * offers no "today" and says when a day is published. Either way it says when traffic shows up.
 */
import { useState } from 'preact/hooks';
import { get, type Session } from '../api';
import { DAY_MS } from '../analytics';
import { bucketSeconds, bucketStarts } from '../buckets';
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

function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

function loadRankings(period: Period, withToday: boolean) {
  return get<RankingsAnswer>(
    `/api/v1/datasets/rankings-daily?period=${period}${withToday ? `&end_date=${todayUtc()}` : ''}`,
  );
}

/** The Rankings page. */
export function Rankings({ session }: { session: Session }) {
  const installation = session.rankings_scope === 'installation';
  const [period, setPeriod] = useState<Period>('day');
  const [todayWanted, setWithToday] = useState(true);
  const withToday = todayWanted && !installation;
  const [load] = useLoad(() => loadRankings(period, withToday), [period, withToday]);
  return (
    <>
      <h1 tabIndex={-1}>Rankings</h1>
      <div class="inline">
        <SelectField
          id="period"
          label="Period"
          value={period}
          choices={PERIODS.map((p): Choice => [p, p])}
          onChange={(v) => setPeriod(v as Period)}
        />
        {!installation && (
          <label class="check">
            <input type="checkbox" checked={withToday} onChange={(e) => setWithToday(e.currentTarget.checked)} />
            Include today so far (UTC)
          </label>
        )}
      </div>
      {load.state !== 'ready' ? (
        <Status load={load} />
      ) : (
        <RankingsBody answer={load.data} period={period} withToday={withToday} installation={installation} />
      )}
    </>
  );
}

/** Every bucket of the answer's window, so the axis spans it even when one bucket has rows. */
function windowBuckets(answer: RankingsAnswer, period: Period): number[] {
  return bucketStarts(
    Date.parse(`${answer.meta.start_date}T00:00:00Z`),
    Date.parse(`${answer.meta.end_date}T00:00:00Z`) + DAY_MS,
    period,
  );
}

/** Why the window is empty, and when traffic will show. */
function emptyText(answer: RankingsAnswer, withToday: boolean, neverRan: boolean, installation: boolean): string {
  const today = todayUtc();
  if (installation)
    return `No model was published from ${answer.meta.start_date} to ${answer.meta.end_date}. Installation-wide rankings publish each completed UTC day once, an hour after it ends, so today's requests (${today}) appear tomorrow.`;
  if (neverRan)
    return `No model in this window yet: the rankings rollup has not run. It runs every few minutes; requests then appear here${withToday ? '' : ` (today's, ${today}, once today is included or the day is over)`}.`;
  if (withToday)
    return `No model was used from ${answer.meta.start_date} to ${answer.meta.end_date}. New requests appear after the next rollup (every few minutes; data as of ${utc(answer.meta.as_of)}).`;
  return `No model was used from ${answer.meta.start_date} to ${answer.meta.end_date}, the completed UTC days. Today's requests (${today}) appear in this window after midnight UTC; tick "Include today so far" to see them now.`;
}

function RankingsBody({
  answer,
  period,
  withToday,
  installation,
}: {
  answer: RankingsAnswer;
  period: Period;
  withToday: boolean;
  installation: boolean;
}) {
  const rows: Row[] = answer.data.map((r) => ({
    date: `${r.date}T00:00:00Z`,
    model: r.model_permaslug,
    tokens: Number(r.total_tokens),
  }));
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(String(r.model), (totals.get(String(r.model)) ?? 0) + (r.tokens as number));
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]);
  const neverRan = answer.meta.as_of === null || Date.parse(answer.meta.as_of) === 0;
  return (
    <>
      <p class="help">
        Tokens per {period} from {answer.meta.start_date} to {answer.meta.end_date}
        {withToday ? ' (today so far)' : ''} (UTC).{' '}
        {neverRan ? 'The rankings rollup has not run yet.' : `Data as of ${utc(answer.meta.as_of)}.`}
      </p>
      {rows.length === 0 ? (
        <Empty>{emptyText(answer, withToday, neverRan, installation)}</Empty>
      ) : (
        <>
          <Chart
            data={pivot(rows, 'date', ['model'], 'tokens', {
              fill: 0,
              buckets: windowBuckets(answer, period),
              step: bucketSeconds(period),
            })}
            label={`Tokens per ${period}, one line per model`}
            format={short}
          />
          <Table
            caption="Models by tokens over the window"
            rows={ranked}
            rowKey={([m]) => m}
            columns={[
              {
                label: 'Rank',
                cell: ([m]) =>
                  m === 'other' ? '—' : ranked.filter(([n]) => n !== 'other').findIndex(([n]) => n === m) + 1,
                numeric: true,
              },
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
