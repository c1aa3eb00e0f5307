/**
 * What a stream generated, kept only as far as the gateway's own count needs it: the first
 * {@link MAX_KEPT_CHARS} characters are kept, the rest only counted, and the count of the whole is
 * the kept part's scaled by the share it holds. So a stream of any length keeps a bounded summary,
 * never every chunk it relayed, and an answer with no usage from its upstream is still charged for
 * all of it.
 * @module
 */

/** Characters kept for the count (about a quarter of a million tokens). */
export const MAX_KEPT_CHARS = 1 << 20;

/** Token count of `texts` (the gateway's tokenizer). */
export type CountTokens = (texts: string[]) => number;

/** One stream's generated text (see the module comment). */
export class GeneratedText {
  private readonly parts: string[] = [];
  private kept = 0;
  private seen = 0;
  private seenBytes = 0;

  /** Add `text` (kept while there is room, counted always). */
  add(text: string): void {
    this.seen += text.length;
    this.seenBytes += Buffer.byteLength(text);
    if (this.kept >= MAX_KEPT_CHARS) return;
    this.parts.push(text);
    this.kept += text.length;
  }

  /**
   * UTF-8 bytes of everything added: an upper bound on its tokens, since a token of a byte-level
   * tokenizer is at least one byte (what a budget's meter is told, budgets/slices.ts).
   */
  get bytes(): number {
    return this.seenBytes;
  }

  /** The parts kept, in order. */
  get keptParts(): readonly string[] {
    return this.parts;
  }

  /** The share of what was seen that was kept (1 until the cap). */
  get keptShare(): number {
    return this.seen === 0 ? 1 : this.kept / this.seen;
  }

  /** Tokens of everything added: the kept part counted with `count` (as one text, as it was generated), the rest at its rate. */
  tokens(count: CountTokens): number {
    if (this.seen === 0) return 0;
    return scaled(count([this.parts.join('')]), this.keptShare);
  }
}

/** `counted` tokens of a kept `share` of a text, as tokens of the whole. */
export function scaled(counted: number, share: number): number {
  return share >= 1 ? counted : Math.ceil(counted / Math.max(share, 1e-9));
}
