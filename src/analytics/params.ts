/**
 * Bind parameters of one statement: every request value goes through here, never into SQL text.
 * @module
 */

/** Collects values and hands out their `$n` placeholders. */
export class Params {
  readonly values: unknown[] = [];
  /** Add a value; returns its placeholder. */
  add(v: unknown): string {
    this.values.push(v);
    return `$${this.values.length}`;
  }
}
