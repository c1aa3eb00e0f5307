/**
 * The last guard before a usage event is stored: every number fits its `generations` column, so
 * no figure can make the insert fail, which would leave an answered, charged request without a
 * record. The services bound what they bill (`bounds.ts`); this catches anything they missed.
 * @module
 */
import { USAGE_COLUMNS } from './columns';
import type { UsageEvent } from './types';

/** The largest value of each integer column type that JSON carries as plain digits. */
const INT_MAX = { int4: 2_147_483_647, int8: Number.MAX_SAFE_INTEGER } as const;

/** `v` as column type `type` stores it: integers rounded into `[0, max]`, floats finite; non-finite → 0. */
function fit(v: number, type: string): number {
  if (!Number.isFinite(v)) return 0;
  if (type !== 'int4' && type !== 'int8') return v;
  return Math.min(INT_MAX[type], Math.max(0, Math.round(v)));
}

/**
 * `event` with every number fit for its column, and the fields that had to change (none: the
 * same object back).
 */
export function storableEvent(event: UsageEvent): { event: UsageEvent; changed: string[] } {
  let copy: Record<string, unknown> | undefined;
  const changed: string[] = [];
  for (const [, field, type] of USAGE_COLUMNS) {
    const v = event[field];
    if (typeof v !== 'number') continue;
    const fitted = fit(v, type);
    if (fitted === v) continue;
    copy ??= { ...event };
    copy[field] = fitted;
    changed.push(field);
  }
  return { event: (copy as UsageEvent | undefined) ?? event, changed };
}
