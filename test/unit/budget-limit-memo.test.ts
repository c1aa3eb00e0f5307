/**
 * The per-key memo of a request's limits: the same counters and signature while nothing they
 * depend on changed, and new ones as soon as the key record, the budget list or the period does,
 * always equal to what limitsFor builds.
 */
import { LimitMemo } from '../../src/budgets/limit-memo';
import { limitsFor } from '../../src/budgets/limits';
import type { BudgetRecord } from '../../src/budgets/repository';
import type { ApiKeyRecord } from '../../src/keys/types';

const key = (over: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
  hash: 'h1',
  orgId: 'o1',
  workspaceId: 'w1',
  name: 'k',
  label: 'k',
  isManagement: false,
  disabled: false,
  limitUsd: 5,
  limitReset: 'weekly',
  includeByokInLimit: false,
  expiresAt: null,
  creatorUserId: null,
  externalUser: null,
  createdAt: new Date(0),
  updatedAt: null,
  ...over,
});
const budget = (interval: BudgetRecord['interval'], limitUsd: number): BudgetRecord => ({
  id: `b-${interval}`,
  workspaceId: 'w1',
  interval,
  limitUsd,
  createdAt: new Date(0),
  updatedAt: new Date(0),
});

const DAY = 86_400_000;
const noon = Date.UTC(2026, 10, 25, 12);

test('while the key record, the budget list and the periods stay, the same limits are handed out', () => {
  const memo = new LimitMemo();
  const k = key();
  const budgets = [budget('daily', 10), budget('monthly', 100)];
  const first = memo.limits(k, budgets, noon);
  expect(first.counters).toEqual(limitsFor(k, budgets, noon));
  expect(first.signature).toBe(first.counters.map((c) => `${c.spentKey}=${c.limitUsd};`).join(''));
  expect(memo.limits(k, budgets, noon + 3_600_000)).toBe(first);
});

test('a new key record or a new budget list gives new limits', () => {
  const memo = new LimitMemo();
  const budgets = [budget('daily', 10)];
  const first = memo.limits(key(), budgets, noon);
  const raised = memo.limits(key({ limitUsd: 50 }), budgets, noon);
  expect(raised).not.toBe(first);
  expect(raised.signature).toContain('=50;');
  const k = key();
  memo.limits(k, budgets, noon);
  const rebudgeted = memo.limits(k, [budget('daily', 20)], noon);
  expect(rebudgeted.counters).toEqual(limitsFor(k, [budget('daily', 20)], noon));
  expect(rebudgeted.signature).toContain('=20;');
});

test('the first period to end ends the limits: the next day has counters of its own', () => {
  const memo = new LimitMemo();
  const k = key();
  const budgets = [budget('daily', 10), budget('monthly', 100)];
  const today = memo.limits(k, budgets, noon);
  const endOfDay = Date.UTC(2026, 10, 26);
  expect(memo.limits(k, budgets, endOfDay - 1)).toBe(today);
  const tomorrow = memo.limits(k, budgets, endOfDay);
  expect(tomorrow).not.toBe(today);
  expect(tomorrow.counters).toEqual(limitsFor(k, budgets, endOfDay));
  expect(tomorrow.counters[0]!.spentKey).not.toBe(today.counters[0]!.spentKey);
  // And back: a clock behind the kept periods does not reuse them either.
  expect(memo.limits(k, budgets, noon - DAY).counters).toEqual(limitsFor(k, budgets, noon - DAY));
});

test('no limits at all is one empty answer, whichever empty list the cache hands out', () => {
  const memo = new LimitMemo();
  const k = key({ limitUsd: null, limitReset: null });
  const none = memo.limits(k, [], noon);
  expect(none.counters).toEqual([]);
  expect(none.signature).toBe('');
  expect(memo.limits(k, [], noon + DAY * 40)).toBe(none);
});
