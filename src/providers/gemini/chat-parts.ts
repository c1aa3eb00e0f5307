/**
 * Canonical message parts as Gemini parts. Text, images, audio and files become `text` and
 * `inlineData` (a remote image URL `fileData`, which Gemini fetches itself); an assistant's tool
 * calls become `functionCall` parts and tool results `functionResponse` parts named after the call
 * they answer (Gemini pairs them by name). Gemini's own reasoning sent back (`google-gemini-v1`)
 * is rebuilt into the parts it came on: a signed thought as a thought part, and each other
 * signature onto the function call whose id it names, else onto the first function call, else the
 * last text part, each signature byte for byte. Reasoning of another provider is left out, as
 * its signature is valid only there.
 * @module
 */
import type { ImageSource, Message, Part } from '../../inference/exchange';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import type { GeminiPart } from './types';

type ReasoningPart = Extract<Part, { type: 'reasoning' }>;

/** The image types a URL's extension names (Gemini wants a `mimeType` with a fetched file). */
const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
};

function imagePart(s: ImageSource): GeminiPart {
  if (s.kind === 'base64') return { inlineData: { mimeType: s.mediaType, data: s.data } };
  const ext = /\.([a-z]+)(?:$|[?#])/i.exec(s.url)?.[1]?.toLowerCase();
  const mimeType = ext ? IMAGE_TYPES[ext] : undefined;
  return { fileData: { fileUri: s.url, ...(mimeType ? { mimeType } : {}) } };
}

/** A content part (text, image, audio, file) as a Gemini part; null for the others and empty texts. */
export function contentPart(p: Part): GeminiPart | null {
  switch (p.type) {
    case 'text':
      return p.text === '' ? null : { text: p.text };
    case 'image':
      return imagePart(p.source);
    case 'audio':
      return { inlineData: { mimeType: `audio/${p.format}`, data: p.data } };
    case 'file':
      // File ids were read into data before the plan (src/chat/file-parts.ts).
      return p.data === undefined
        ? null
        : { inlineData: { mimeType: p.mediaType ?? 'application/octet-stream', data: p.data } };
    case 'tool_call':
    case 'tool_result':
    case 'reasoning':
      return null;
  }
}

/** A tool call's JSON arguments as the `args` object Gemini wants (`{}` when they are not an object). */
function argsOf(text: string): Record<string, unknown> {
  return asObject(parseJson(text)) ?? {};
}

/** Gemini's reasoning parts of an assistant message, split: signed thoughts, and the signatures of other parts. */
function geminiReasoning(parts: readonly Part[]): { thoughts: GeminiPart[]; signatures: ReasoningPart[] } {
  const thoughts: GeminiPart[] = [];
  const signatures: ReasoningPart[] = [];
  for (const p of parts) {
    if (p.type !== 'reasoning' || p.format !== 'google-gemini-v1') continue;
    if (p.encrypted !== undefined) signatures.push(p);
    // A thought without its signature gives the model nothing back: it is not sent.
    else if (p.signature !== undefined)
      thoughts.push({ text: p.text ?? '', thought: true, thoughtSignature: p.signature });
  }
  return { thoughts, signatures };
}

/** Each signature onto its part (see the module comment); one with no part left gets a part of its own. */
function attachSignatures(
  out: GeminiPart[],
  signatures: readonly ReasoningPart[],
  calls: Map<string, GeminiPart>,
): void {
  for (const s of signatures) {
    const signature = s.encrypted!;
    const target =
      (s.id !== undefined ? calls.get(s.id) : undefined) ??
      out.find((p) => p.functionCall && p.thoughtSignature === undefined) ??
      [...out].reverse().find((p) => p.text !== undefined && !p.thought && p.thoughtSignature === undefined);
    if (target && target.thoughtSignature === undefined) target.thoughtSignature = signature;
    else out.push({ text: '', thoughtSignature: signature });
  }
}

/** An assistant message as a `model` turn's parts: signed thoughts, content, function calls, signatures restored. */
export function modelParts(m: Message): GeminiPart[] {
  const { thoughts, signatures } = geminiReasoning(m.parts);
  const out: GeminiPart[] = [...thoughts];
  const calls = new Map<string, GeminiPart>();
  for (const p of m.parts) {
    const content = contentPart(p);
    if (content) out.push(content);
    else if (p.type === 'tool_call') {
      const call: GeminiPart = { functionCall: { name: p.name, args: argsOf(p.arguments) } };
      calls.set(p.id, call);
      out.push(call);
    }
  }
  // Signatures attach to function calls first, so the calls go in before they are placed.
  attachSignatures(out, signatures, calls);
  return out;
}

/**
 * A tool message as a `user` turn's parts: each result as a `functionResponse` named after its
 * call (`names`: call id → function name, from the turns before), its text as `output` (`error`
 * for a failed call); images or files in a result follow it as parts of their own.
 */
export function toolResultParts(m: Message, names: ReadonlyMap<string, string>): GeminiPart[] {
  const out: GeminiPart[] = [];
  for (const p of m.parts) {
    if (p.type !== 'tool_result') continue;
    const parts = typeof p.content === 'string' ? [] : p.content;
    const text =
      typeof p.content === 'string' ? p.content : parts.map((c) => (c.type === 'text' ? c.text : '')).join('');
    out.push({
      functionResponse: {
        name: names.get(p.callId) ?? p.callId,
        response: p.isError ? { error: text } : { output: text },
      },
    });
    for (const c of parts) {
      const extra = c.type === 'text' ? null : contentPart(c);
      if (extra) out.push(extra);
    }
  }
  return out;
}
