/**
 * Budget arithmetic without I/O: UTC periods (day, ISO week from Monday, calendar month,
 * lifetime), the strict ordering rule between budgets, and USD ↔ nano-USD conversion.
 */
import { periodOf } from '../../src/budgets/periods';
import { orderConflict } from '../../src/budgets/service';
import { fromNanos, limitsFor, toNanos } from '../../src/budgets/limits';
import type { BudgetRecord } from '../../src/budgets/repository';
import type { ApiKeyRecord } from '../../src/keys/types';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

describe('periodOf', () => {
  test('daily: the UTC calendar day', () => {
    const p = periodOf('daily', at('2026-11-22T23:59:59.999Z'));
    expect(p.id).toBe('2026-11-22');
    expect(iso(p.startMs)).toBe('2026-11-22T00:00:00.000Z');
    expect(iso(p.endMs)).toBe('2026-11-23T00:00:00.000Z');
    expect(periodOf('daily', at('2026-11-23T00:00:00.000Z')).id).toBe('2026-11-23');
  });

  test('weekly: ISO week from Monday 00:00 UTC, Sunday belongs to the week before', () => {
    const sunday = periodOf('weekly', at('2026-11-22T23:59:59.999Z'));
    expect(sunday.id).toBe('2026-11-16');
    expect(iso(sunday.endMs)).toBe('2026-11-23T00:00:00.000Z');
    const monday = periodOf('weekly', at('2026-11-23T00:00:00.000Z'));
    expect(monday.id).toBe('2026-11-23');
    expect(iso(monday.startMs)).toBe('2026-11-23T00:00:00.000Z');
    // A week spanning a year boundary keeps its Monday start.
    expect(periodOf('weekly', at('2027-01-01T10:00:00Z')).id).toBe('2026-12-28');
  });

  test('monthly: the calendar month, December rolls into the next year', () => {
    const p = periodOf('monthly', at('2026-12-31T12:00:00Z'));
    expect(p.id).toBe('2026-12');
    expect(iso(p.startMs)).toBe('2026-12-01T00:00:00.000Z');
    expect(iso(p.endMs)).toBe('2027-01-01T00:00:00.000Z');
  });

  test('every instant of a period gives the same period, edges exact (a clock that goes back included)', () => {
    const first = periodOf('daily', at('2026-11-22T10:00:00Z'));
    expect(periodOf('daily', at('2026-11-22T23:00:00Z'))).toEqual(first);
    expect(periodOf('daily', at('2026-11-21T23:59:59.999Z')).id).toBe('2026-11-21');
    expect(periodOf('daily', at('2026-11-23T00:00:00.000Z')).id).toBe('2026-11-23');
    expect(periodOf('daily', at('2026-11-22T12:00:00Z'))).toEqual(first);
    expect(periodOf('monthly', at('2026-11-30T23:59:59.999Z')).id).toBe('2026-11');
    expect(periodOf('monthly', at('2026-12-01T00:00:00Z')).id).toBe('2026-12');
  });

  test('lifetime: one period that never ends', () => {
    expect(periodOf('lifetime', at('2026-11-22T12:00:00Z'))).toEqual({
      interval: 'lifetime',
      id: 'all',
      startMs: 0,
      endMs: null,
    });
  });
});

function budget(interval: BudgetRecord['interval'], limitUsd: number): BudgetRecord {
  return { id: interval, workspaceId: 'w', interval, limitUsd, createdAt: new Date(), updatedAt: new Date() };
}

describe('orderConflict: lifetime > monthly > weekly > daily, strictly', () => {
  const existing = [budget('daily', 10), budget('monthly', 100)];
  test('a limit between its neighbours fits', () => {
    expect(orderConflict(existing, 'weekly', 50)).toBeUndefined();
    expect(orderConflict(existing, 'lifetime', 101)).toBeUndefined();
    expect(orderConflict(existing, 'daily', 99)).toBeUndefined(); // replaces itself, below monthly
  });
  test('equal or out-of-order limits name the conflicting budget', () => {
    expect(orderConflict(existing, 'weekly', 10)?.interval).toBe('daily');
    expect(orderConflict(existing, 'weekly', 100)?.interval).toBe('monthly');
    expect(orderConflict(existing, 'lifetime', 100)?.interval).toBe('monthly');
    expect(orderConflict(existing, 'daily', 100)?.interval).toBe('monthly');
  });
});

describe('nano-USD units', () => {
  test('estimates round up without float noise; settled costs round to nearest', () => {
    expect(toNanos(0.1, 'up')).toBe(100_000_000);
    expect(toNanos(1.2e-7, 'up')).toBe(120);
    expect(toNanos(1.0000000001, 'up')).toBe(1_000_000_001);
    expect(toNanos(0.3)).toBe(300_000_000);
    expect(fromNanos(50_000_000)).toBe(0.05);
    // Five tenths of a cent sum to exactly the limit in integer units (floats would not).
    expect(5 * toNanos(0.01, 'up')).toBe(toNanos(0.05));
  });
});

describe('limitsFor', () => {
  const key: ApiKeyRecord = {
    hash: 'a'.repeat(64),
    orgId: 'o',
    workspaceId: 'w1',
    name: 'k',
    label: 'l',
    isManagement: false,
    disabled: false,
    limitUsd: 5,
    limitReset: null,
    includeByokInLimit: false,
    expiresAt: null,
    creatorUserId: null,
    externalUser: null,
    createdAt: new Date(),
    updatedAt: null,
    sessionGeneration: 0,
  };
  test('one counter per budget plus the key limit (lifetime when limit_reset is null), all hash-tagged by workspace', () => {
    const counters = limitsFor(key, [budget('daily', 1), budget('monthly', 3)], at('2026-11-22T12:00:00Z'));
    expect(counters.map((c) => [c.source, c.interval, c.period.id])).toEqual([
      ['workspace_budget', 'daily', '2026-11-22'],
      ['workspace_budget', 'monthly', '2026-11'],
      ['key_limit', 'lifetime', 'all'],
    ]);
    for (const c of counters) expect(c.spentKey).toContain('{w1}');
    expect(limitsFor({ ...key, limitUsd: null }, [], 0)).toEqual([]);
  });
});
