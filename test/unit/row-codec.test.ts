/**
 * The usage stream's COPY rows: one line per event, the `generations` columns in order, every
 * value back exactly as recorded (escapes, NULLs, numbers, the Date), and lines that are not
 * events handed back as foreign instead of being guessed at.
 */
import { USAGE_COLUMNS } from '../../src/usage/columns';
import { decodeUsageRows, encodeUsageRow } from '../../src/usage/row-codec';
import type { UsageEvent } from '../../src/usage/types';
import { SAMPLE_USAGE_EVENT } from '../helpers/usage-events';

const event = SAMPLE_USAGE_EVENT;

describe('usage row codec', () => {
  test('one line per event with the columns in USAGE_COLUMNS order, NULL as \\N', () => {
    const row = encodeUsageRow(event);
    expect(row.endsWith('\n')).toBe(true);
    const fields = row.slice(0, -1).split('\t');
    expect(fields).toHaveLength(USAGE_COLUMNS.length);
    const expected = USAGE_COLUMNS.map(([, field]) => {
      const v = event[field];
      return v === null ? '\\N' : v instanceof Date ? v.toISOString() : String(v);
    });
    expect(fields).toEqual(expected);
  });

  test('round-trips every value: backslashes, tabs, newlines, carriage returns, a literal \\N, unicode, exponents', () => {
    const odd: UsageEvent = {
      ...event,
      endUser: 'tab\there, newline\nthere, cr\rthere, backslash \\ and \\t and \\N',
      sessionId: '\\N',
      userAgent: 'ünïcødé 🐑 "quoted" , ;',
      httpReferer: '',
      appTitle: '\\',
      keyHash: '\\\\.',
      costUsd: 1e-300,
      tokensPrompt: 2147483647,
      latencyMs: null,
      generationTimeMs: 0,
    };
    const rows = encodeUsageRow(odd) + encodeUsageRow(event);
    expect(rows.split('\n')).toHaveLength(3); // two rows and what follows the last newline
    const { events, foreign } = decodeUsageRows(rows);
    expect(foreign).toEqual([]);
    expect(events).toEqual([odd, event]);
    expect(events[0]!.sessionId).toBe('\\N'); // the string, not NULL
    expect(events[0]!.createdAt).toBeInstanceOf(Date);
  });

  test('NaN and infinite numbers become NULL, as in the JSON encoding; a bad date too', () => {
    const fields = encodeUsageRow({ ...event, costUsd: Number.NaN, tokensPrompt: Number.POSITIVE_INFINITY, createdAt: new Date(Number.NaN) })
      .slice(0, -1).split('\t');
    expect(fields[1]).toBe('\\N');
    expect(fields[11]).toBe('\\N');
    expect(fields[13]).toBe('\\N');
  });

  test('lines that are not events are foreign: wrong column count, no id, a bad date, a cut-off row, nothing at all', () => {
    const good = encodeUsageRow(event);
    const fields = good.slice(0, -1).split('\t');
    const noId = ['\\N', ...fields.slice(1)].join('\t');
    const badDate = [fields[0], 'yesterday', ...fields.slice(2)].join('\t');
    const cut = good.slice(0, 40);
    const rows = `${good}garbage\n${noId}\n${badDate}\n${good}${cut}`;
    expect(decodeUsageRows(rows)).toEqual({ events: [event, event], foreign: ['garbage', noId, badDate, cut] });
    expect(decodeUsageRows('')).toEqual({ events: [], foreign: [''] });
    expect(decodeUsageRows('\\.\n')).toEqual({ events: [], foreign: ['\\.'] });
  });
});
