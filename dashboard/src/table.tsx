/** A data table in a keyboard-scrollable region, so a wide table scrolls on its own at 360 px. */
import type { ComponentChildren } from 'preact';

/** One column: its header and how a row renders in it. */
export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** Right-aligned, tabular figures. */
  numeric?: boolean;
}

/** A table with a caption (its accessible name) and a header row. */
export function Table<T>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T, i: number) => string;
}) {
  return (
    <div class="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.numeric ? 'num' : undefined} key={c.label}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={rowKey(row, i)}>
              {columns.map((c) => (
                <td class={c.numeric ? 'num' : undefined} key={c.label}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
