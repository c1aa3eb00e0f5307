/**
 * A prompt's size without counting it: its UTF-8 bytes bound a byte-level BPE count from above
 * (every token is at least one byte), and that bound is what routing's context check and the
 * budget reservation use. The exact count (the gateway's tokenizer, about a sixth of a millisecond
 * per KB) is made on first read only, when the bound would change an outcome: a context the bound
 * does not fit, a reservation it is refused, an answer whose upstream reported no usage.
 * @module
 */
import { countTokens } from '../usage/tokens';

/** A prompt's tokens: a cheap upper bound, and the exact count on demand. */
export interface PromptTokens {
  /** At least the prompt's tokens as the gateway counts them. */
  readonly tokenBound: number;
  /** The prompt's tokens as the gateway counts them (counted on first read, then kept). */
  readonly tokens: number;
}

/** The size of a prompt of `texts` plus `fixed` tokens (media parts, per-message overhead). */
export function promptTokens(texts: readonly string[], fixed: number): PromptTokens {
  let bytes = 0;
  for (const t of texts) bytes += Buffer.byteLength(t, 'utf8');
  let counted: number | undefined;
  return {
    tokenBound: bytes + fixed,
    get tokens() {
      return (counted ??= countTokens(texts as string[]) + fixed);
    },
  };
}

/** `rest` with `size`'s members, the count kept lazy (a getter; spreading `size` would count it). */
export function withSize<T extends object>(rest: T, size: PromptTokens): T & PromptTokens {
  return Object.defineProperties(rest, {
    tokenBound: { value: size.tokenBound, enumerable: true },
    tokens: { get: () => size.tokens, enumerable: true },
  }) as T & PromptTokens;
}
