/**
 * JSON that repeats members of the client's body as the client wrote them: each member of `out`
 * that is the very value the client's body holds under the same name (an object or array, or a
 * long string: what is large) is copied as the client's bytes (src/http/raw-json-body.ts);
 * everything else is serialised. Without kept bytes this is `JSON.stringify(out)`. Upstream
 * bodies pass the client's members on this way; the Responses door's answers repeat its request's.
 * @module
 */
import { rawMember } from '../http/raw-json-body';

/** Strings shorter than this are serialised: a copied piece costs more than it saves. */
const COPIED_STRING_LENGTH = 1024;

/** `value` is what a copy of the client's bytes pays for. */
const copyable = (value: unknown): boolean =>
  (value !== null && typeof value === 'object') || (typeof value === 'string' && value.length >= COPIED_STRING_LENGTH);

/** `out` as JSON, with the members it shares with `source` (the client's parsed body) copied as sent. */
export function upstreamJson(out: Record<string, unknown>, source: object): string | Buffer {
  const client = source as Record<string, unknown>;
  const pieces: Buffer[] = [];
  let text = '{';
  let separator = '';
  for (const [key, value] of Object.entries(out)) {
    if (value === undefined) continue;
    text += `${separator}${JSON.stringify(key)}:`;
    separator = ',';
    const bytes = copyable(value) && client[key] === value ? rawMember(source, key) : undefined;
    if (bytes === undefined) {
      text += JSON.stringify(value);
      continue;
    }
    pieces.push(Buffer.from(text), bytes);
    text = '';
  }
  if (pieces.length === 0) return `${text}}`;
  pieces.push(Buffer.from(`${text}}`));
  return Buffer.concat(pieces);
}

/** {@link upstreamJson} as text, for an answer written as a string. */
export function clientJsonText(out: Record<string, unknown>, source: object): string {
  const json = upstreamJson(out, source);
  return typeof json === 'string' ? json : json.toString('utf8');
}
