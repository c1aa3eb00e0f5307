/** One budget as a bar: spent and reserved against the limit, and when it resets. */
import { usd, utc } from '../format';
import type { Budget } from '../types';

function share(part: number, whole: number): string {
  return `${Math.min(100, Math.max(0, (part / whole) * 100)).toFixed(2)}%`;
}

/** The bar and its figures in words (the bar itself is decoration for the same numbers). */
export function BudgetBar({
  budget,
  workspace,
  onRemove,
}: {
  budget: Budget;
  workspace: string;
  onRemove: () => void;
}) {
  const spent = budget.spent_usd;
  const reserved = budget.reserved_usd ?? 0;
  const resets = budget.resets_at;
  const used = spent + reserved;
  return (
    <li class="budget" data-interval={budget.reset_interval}>
      <div class="budget-head">
        <strong>{budget.reset_interval}</strong>
        <span>
          {`${usd(spent)} spent${reserved > 0 ? `, ${usd(reserved)} reserved` : ''} of ${usd(budget.limit_usd)}`}
          {budget.reserved_usd === null && ' (reservations unknown: the budget store is unreachable)'}
        </span>
        <button
          type="button"
          class="link"
          onClick={onRemove}
          aria-label={`Remove the ${budget.reset_interval} budget of ${workspace}`}
        >
          Remove
        </button>
      </div>
      <div class={`bar${used >= budget.limit_usd ? ' full' : ''}`} aria-hidden="true">
        <span class="spent" style={{ width: share(spent, budget.limit_usd) }} />
        <span class="reserved" style={{ width: share(reserved, budget.limit_usd) }} />
      </div>
      <p class="help">{resets ? `Resets ${utc(resets)}` : 'Lifetime: never resets'}</p>
    </li>
  );
}
