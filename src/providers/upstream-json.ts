/**
 * An upstream body that passes members of the client's body on unchanged: each member of `out`
 * that is the very value the client's body holds under the same name (an object or array, which
 * is what is large) is copied as the client's bytes (src/http/raw-json-body.ts); everything else
 * is serialised. Without kept bytes this is `JSON.stringify(out)`.
 * @module
 */
import { rawMember } from '../http/raw-json-body';

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
    const bytes =
      value !== null && typeof value === 'object' && client[key] === value ? rawMember(source, key) : undefined;
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
