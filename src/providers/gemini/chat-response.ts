/**
 * A Gemini generateContent answer → the canonical answer (its first candidate). Thought parts
 * are reasoning (`google-gemini-v1`, with their signature); a signature on any other part is a
 * reasoning part of its own before it (encrypted data, with the tool call's id when it is on a
 * function call), so that the client can send it back and it lands on the same part
 * (`chat-parts.ts`). A blocked prompt (no candidate, `promptFeedback.blockReason`) is an empty
 * answer that ended by the content filter.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Answer, Part } from '../../inference/exchange';
import { asObject } from '../parse';
import { parseJson } from '../raw-json';
import { blockReasonOf, finishOf, usageOf } from './finish';

/** The reasoning format of Gemini's thoughts and signatures. */
export const GEMINI_FORMAT = 'google-gemini-v1';

/** A tool call id for a function call that came without one (Gemini pairs calls by name). */
export function callId(raw: unknown): string {
  return typeof raw === 'string' && raw !== '' ? raw : `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
}

/** One Gemini part as canonical parts, in order (nothing for an empty one). */
export function partsOf(raw: unknown): Part[] {
  const p = asObject(raw);
  if (!p) return [];
  const signature = typeof p.thoughtSignature === 'string' && p.thoughtSignature !== '' ? p.thoughtSignature : null;
  const text = typeof p.text === 'string' ? p.text : null;
  if (p.thought === true)
    return [{ type: 'reasoning', format: GEMINI_FORMAT, text: text ?? '', ...(signature ? { signature } : {}) }];
  const out: Part[] = [];
  const call = asObject(p.functionCall);
  if (call && typeof call.name === 'string') {
    const id = callId(call.id);
    if (signature) out.push({ type: 'reasoning', format: GEMINI_FORMAT, encrypted: signature, id });
    out.push({ type: 'tool_call', id, name: call.name, arguments: JSON.stringify(call.args ?? {}) });
    return out;
  }
  if (signature) out.push({ type: 'reasoning', format: GEMINI_FORMAT, encrypted: signature });
  if (text) out.push({ type: 'text', text });
  return out;
}

/** A parsed GenerateContentResponse → {@link Answer}; null when it is no answer. */
export function answerOfResponse(b: Record<string, unknown>): Answer | null {
  const upstreamId = typeof b.responseId === 'string' ? b.responseId : null;
  const usage = usageOf(b.usageMetadata);
  const candidate = asObject(Array.isArray(b.candidates) ? b.candidates[0] : undefined);
  if (!candidate) {
    const blocked = blockReasonOf(b);
    if (!blocked) return null;
    return { parts: [], stopReason: 'content_filter', nativeStopReason: blocked, usage, upstreamId };
  }
  const content = asObject(candidate.content);
  const parts = (Array.isArray(content?.parts) ? content.parts : []).flatMap(partsOf);
  const native = typeof candidate.finishReason === 'string' ? candidate.finishReason : null;
  const called = parts.some((p) => p.type === 'tool_call');
  const stopReason = native === null ? null : finishOf(native, called);
  return { parts, stopReason, nativeStopReason: native, usage, upstreamId };
}

/** A 2xx body → {@link Answer}; null when it is not a generateContent answer (→ fallback, else 502). */
export function fromGenerateResponse(body: Buffer): Answer | null {
  const b = asObject(parseJson(body.toString('utf8')));
  return b ? answerOfResponse(b) : null;
}
