/**
 * The meter of one sliced answer (budgets/slices.ts): told an upper bound on the completion
 * tokens generated so far, it asks the budget for the next slice once half of the last one is
 * used (so the answer rarely waits on the round trip), says to wait while the answer is past its
 * hold and a slice is being asked for, and to cut it once a slice was refused and the hold is used.
 * @module
 */
import type { SliceBudget } from '../budgets/slices';
import type { CompletionSlice } from '../chat/plan';

/** What the answer may do at the bound it reached: go on, wait for the slice being asked for, or stop. */
export type MeterState = 'covered' | 'waiting' | 'cut';

/** One answer's meter (see the module comment). */
export class SliceMeter {
  /** Completion tokens the budget holds for the answer (the first reservation held one slice). */
  private heldTokens: number;
  private asking: Promise<void> | null = null;
  private refused = false;

  constructor(
    private readonly budget: SliceBudget,
    private readonly slice: CompletionSlice,
  ) {
    this.heldTokens = slice.tokens;
  }

  /** The state at `tokens` generated (an upper bound; the request's completion ceiling caps it). */
  observe(tokens: number): MeterState {
    const bound = Math.min(tokens, this.slice.ceilingTokens);
    const more = this.heldTokens < this.slice.ceilingTokens;
    if (more && !this.refused && !this.asking && bound + this.slice.tokens / 2 >= this.heldTokens) this.ask();
    if (bound <= this.heldTokens) return 'covered';
    return this.asking ? 'waiting' : 'cut';
  }

  /** Settles once the slice being asked for is granted or refused (at once when none is). */
  get decided(): Promise<void> {
    return this.asking ?? Promise.resolve();
  }

  private ask(): void {
    const usd = this.slice.tokens * this.slice.usdPerToken;
    this.asking = this.budget.extend(usd).then((granted) => {
      if (granted) this.heldTokens += this.slice.tokens;
      else this.refused = true;
      this.asking = null;
    });
  }
}
