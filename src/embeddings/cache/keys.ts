/**
 * Cache keys of the embeddings cache: one per input, a SHA-256 over everything that decides the
 * vector (the model, the output dimensions, `input_type`, the exact input) and the tenant whose
 * entries they are, so one organization's (or workspace's) lookups can never find another's.
 * The encoding (`float`/`base64`) is not part of the key: an entry serves both.
 * @module
 */
import { hash } from 'node:crypto';
import type { ContentPart, EmbeddingInput } from '../../providers/embeddings-types';

/** What an entry is shared by, besides the input itself. */
export interface KeyScope {
  /** `o:<org id>` or `w:<workspace id>` (the `embeddingsCache.scope` setting). */
  tenant: string;
  model: string;
  dimensions: number | undefined;
  inputType: string | undefined;
}

/**
 * The text's exact identity. A well-formed string's UTF-8 bytes are it; one holding a lone
 * surrogate (which UTF-8 would turn into U+FFFD, making two different inputs one) is taken as its
 * JSON form, which keeps the surrogate as an escape, as the upstream receives it.
 */
function textPayload(text: string): string {
  return LONE_SURROGATE.test(text) ? `j${JSON.stringify(text)}` : `t${text}`;
}

/** With the `u` flag a surrogate pair is one code point, so only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

const tokenPayload = (ids: number[]): string => `k${ids.join(',')}`;
const partsPayload = (parts: ContentPart[]): string => `m${JSON.stringify(parts)}`;

/**
 * The store key of each input of `input`, in input order. The scope's header is JSON (no raw
 * newline), so the newline after it separates it from the input unambiguously.
 */
export function inputKeys(scope: KeyScope, input: EmbeddingInput): string[] {
  const header = `${JSON.stringify([scope.tenant, scope.model, scope.dimensions ?? null, scope.inputType ?? null])}\n`;
  const payloads =
    input.kind === 'text'
      ? input.texts.map(textPayload)
      : input.kind === 'tokens'
        ? input.tokens.map(tokenPayload)
        : input.items.map(partsPayload);
  return payloads.map((p) => `ec:${hash('sha256', header + p, 'base64url')}`);
}
