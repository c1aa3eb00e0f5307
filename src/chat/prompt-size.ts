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

/** Tokens each member or item of a JSON value adds around its text (quotes, colon, comma), as the count assumes. */
const JSON_NODE_TOKENS = 2;

/**
 * Visit the texts of a JSON value (keys, strings, numbers as written) and return its members and
 * items: what a prompt's tools, schemas and tool inputs are counted as. Upstreams do not read tools
 * as JSON text (OpenAI renders them as type declarations), so their texts plus a little per member
 * is as near as their JSON, and it is sized without building that JSON on every turn.
 */
function walkJson(value: unknown, text: (s: string) => void): number {
  if (typeof value === 'string') return (text(value), 1);
  if (typeof value === 'number') return (text(String(value)), 1);
  if (value === null || typeof value !== 'object') return 1;
  let nodes = 1;
  if (Array.isArray(value)) for (const v of value) nodes += walkJson(v, text);
  else
    for (const k in value) {
      text(k);
      nodes += walkJson((value as Record<string, unknown>)[k], text);
    }
  return nodes;
}

/** {@link walkJson}'s texts' UTF-8 bytes plus its members' tokens: the bound, walked with no allocation. */
function jsonBound(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8') + JSON_NODE_TOKENS;
  // A number's text is ASCII: at most 24 characters (`-1.2345678901234567e-300`).
  if (typeof value === 'number') return 24 + JSON_NODE_TOKENS;
  if (value === null || typeof value !== 'object') return JSON_NODE_TOKENS;
  let n = JSON_NODE_TOKENS;
  if (Array.isArray(value)) for (let i = 0; i < value.length; i++) n += jsonBound(value[i]);
  else for (const k in value) n += Buffer.byteLength(k, 'utf8') + jsonBound((value as Record<string, unknown>)[k]);
  return n;
}

/** What a prompt is counted by: its texts, and the JSON values it carries (tools, schemas, tool inputs, counted by their texts, see {@link walkJson}). */
export interface PromptParts {
  readonly texts: readonly string[];
  readonly values: readonly unknown[];
}

const keeping = (parts: PromptParts) => () => parts;

/**
 * The size of a prompt of `parts` and `fixed` tokens (media parts, per-message overhead). The
 * exact count reads the prompt again through `reread` (by default `parts`, kept until then): a
 * door whose body gives its large members up once they are sent (`releaseRawMembers`) passes a
 * reread of the body, so nothing holds the prompt's texts while the upstream answers.
 */
export function promptTokens(parts: PromptParts, fixed: number, reread?: () => PromptParts): PromptTokens {
  // Only `read` is in the getter's closure: with a reread given, `parts` is garbage on return.
  const read = reread ?? keeping(parts);
  let bound = fixed;
  for (const t of parts.texts) bound += Buffer.byteLength(t, 'utf8');
  for (const v of parts.values) bound += jsonBound(v);
  let counted: number | undefined;
  return {
    tokenBound: bound,
    get tokens() {
      if (counted !== undefined) return counted;
      const { texts, values } = read();
      const all = [...texts];
      let nodes = 0;
      for (const v of values) nodes += walkJson(v, (t) => void all.push(t));
      return (counted = countTokens(all) + nodes * JSON_NODE_TOKENS + fixed);
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
