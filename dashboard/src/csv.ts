/** CSV of answer rows, downloaded from a Blob (nothing leaves the browser). */
import type { Row } from './types';

/** Quote a cell; text that a spreadsheet would run as a formula is prefixed with `'`. */
function cell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** RFC 4180 text: a header line of `columns`, then one line per row. */
export function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  return (
    [columns.map(cell).join(','), ...rows.map((r) => columns.map((c) => cell(r[c])).join(','))].join('\r\n') + '\r\n'
  );
}

/** Save `text` as a file named `name`. */
export function downloadText(name: string, text: string, type = 'text/csv'): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // The download has started by now; the URL is released a little later for slower browsers.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
