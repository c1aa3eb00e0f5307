/**
 * The fake Gemini chat wire (`models/{model}:generateContent`, `:streamGenerateContent?alt=sse`),
 * deterministic from the request as the other chat wires are (`chat-wires.ts`): the reply is
 * `echo: <last user text>`, `result: <output>` after a function response, `{"echo": …}` with
 * `responseMimeType: application/json`; with tools (and a last user turn of text) the model calls
 * the first declared function (or the one `allowedFunctionNames` names) with `{"text": …}`.
 * - It thinks when `thinkingConfig` asks (a budget above 0 or a level) or the model always thinks
 *   (`gemini-2.5-pro`, `gemini-3…`): `thoughtsTokenCount` counts `thinking about: <last user text>`,
 *   which comes back as a thought part only with `includeThoughts`. Thinking, it signs its answer
 *   as Gemini does: the first function call, else the text (streamed: an empty last text part).
 *   Each signature is {@link signatureOf} the part it is on.
 * - Usage: every word of the contents and the system instruction is a prompt token, the words of
 *   the system instruction are also cache reads (`cachedContentTokenCount`), one candidate token
 *   per word; left out when the fake's `reportUsage` is off.
 * - A last user text holding `unsafe` ends with `finishReason: SAFETY` and no content; one holding
 *   `forbidden` is a blocked prompt (`promptFeedback.blockReason`, no candidate).
 * It refuses (400 INVALID_ARGUMENT, Gemini's error shape) what Gemini refuses: a field it does not
 * define, a request without the `x-goog-api-key` (403), a thinking budget of 0 on 2.5 Pro or
 * outside 0–24576, a thinking level on Gemini 2.5, a signature that is not the one it gave that
 * part, and on Gemini 3 a function call of the current turn whose signature is missing (the
 * first call of each model turn, which it signed).
 * @module
 */
import type { ChatWire } from './chat-wires';
import { pieces, turnFor, wordCount, words, type Turn } from './chat-wires';

type Part = {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { name: string; args?: unknown };
  functionResponse?: { name: string; response?: Record<string, unknown> };
  inlineData?: unknown;
  fileData?: unknown;
};
type Content = { role?: string; parts?: Part[] };

/** The signature the fake gives a part: base64 of what it signs (with `+`, `/` and `=`, so a byte changed on the way shows). */
export function signatureOf(kind: 'call' | 'text' | 'thought', payload: string): string {
  return Buffer.from(`gemini-fake-signature>>${kind}?${payload}`).toString('base64');
}

/** The answer's response id (the record's `upstream_id`). */
export const GEMINI_RESPONSE_ID = 'gemini-fake-response-1';

const TOP_LEVEL = new Set([
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'generationConfig',
  'safetySettings',
  'cachedContent',
]);
const GENERATION = new Set([
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'seed',
  'candidateCount',
  'presencePenalty',
  'frequencyPenalty',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'thinkingConfig',
]);

/** Gemini's error body. */
export const geminiError = (code: number, message: string, status: string) => ({ error: { code, message, status } });
const invalid = (message: string) => geminiError(400, message, 'INVALID_ARGUMENT');

/** The model a path names (`/v1beta/models/<model>:generateContent`). */
const modelOf = (path: string | undefined) => /\/models\/([^/:]+):/.exec(path ?? '')?.[1] ?? '';

const contentsOf = (body: Record<string, unknown>) => (body.contents as Content[] | undefined) ?? [];
const textOfParts = (parts: Part[] | undefined) => (parts ?? []).map((p) => (p.thought ? '' : (p.text ?? ''))).join('');
const isResponseTurn = (c: Content) => (c.parts ?? []).some((p) => p.functionResponse);

interface GeminiTurn extends Turn {
  thinking: string | null;
  /** Thoughts are written out (`includeThoughts`). */
  showThoughts: boolean;
  cacheRead: number;
  safety: boolean;
  blocked: boolean;
}

function thinks(body: Record<string, unknown>, model: string): boolean {
  const config = (body.generationConfig as { thinkingConfig?: Record<string, unknown> } | undefined)?.thinkingConfig;
  if (/gemini-2\.5-pro|gemini-3/.test(model)) return true;
  if (!config) return false;
  return (
    config.thinkingLevel !== undefined || (typeof config.thinkingBudget === 'number' && config.thinkingBudget !== 0)
  );
}

function geminiTurn(body: Record<string, unknown>, path: string | undefined): GeminiTurn {
  const contents = contentsOf(body);
  const last = contents[contents.length - 1];
  const lastUser = [...contents].reverse().find((c) => c.role === 'user' && !isResponseTurn(c));
  const declared = (body.tools as Array<{ functionDeclarations?: Array<{ name: string }> }> | undefined)?.[0]
    ?.functionDeclarations;
  const calling = (body.toolConfig as { functionCallingConfig?: { mode?: string; allowedFunctionNames?: string[] } })
    ?.functionCallingConfig;
  const toolName =
    declared?.length && last && !isResponseTurn(last) && calling?.mode !== 'NONE'
      ? (calling?.allowedFunctionNames?.[0] ?? declared[0]!.name)
      : null;
  const results = last && isResponseTurn(last) ? (last.parts ?? []).filter((p) => p.functionResponse) : [];
  const config = (body.generationConfig ?? {}) as Record<string, unknown>;
  const userText = lastUser ? textOfParts(lastUser.parts) : null;
  const asked = {
    lastUser: userText,
    toolResult: results.length
      ? results
          .map((p) => String(p.functionResponse!.response?.output ?? p.functionResponse!.response?.error))
          .join(' ')
      : null,
    json: config.responseMimeType === 'application/json',
  };
  const system = body.systemInstruction as Content | undefined;
  const cacheRead = wordCount(system?.parts ?? []);
  const turn = turnFor(asked, toolName, config.maxOutputTokens, wordCount(contents) + cacheRead);
  const thinking = thinks(body, modelOf(path)) ? `thinking about: ${userText ?? ''}` : null;
  const includeThoughts = (config.thinkingConfig as { includeThoughts?: boolean } | undefined)?.includeThoughts;
  return {
    ...turn,
    thinking,
    showThoughts: thinking !== null && includeThoughts === true,
    cacheRead,
    safety: (userText ?? '').includes('unsafe'),
    blocked: (userText ?? '').includes('forbidden'),
  };
}

/** What Gemini refuses about thinking (see the module comment). */
function thinkingRefusal(body: Record<string, unknown>, model: string): unknown {
  const config = (body.generationConfig as { thinkingConfig?: Record<string, unknown> } | undefined)?.thinkingConfig;
  if (!config) return null;
  if (config.thinkingLevel !== undefined && model.startsWith('gemini-2'))
    return invalid('Thinking level is not supported for this model.');
  const budget = config.thinkingBudget;
  if (budget === 0 && model.includes('gemini-2.5-pro'))
    return invalid('Budget 0 is invalid. This model only works in thinking mode.');
  if (typeof budget === 'number' && budget !== -1 && (budget < 0 || budget > 24576))
    return invalid('The thinking budget is out of range.');
  return null;
}

/** The signature a model part must carry, when the fake signs such a part. */
function expectedSignature(p: Part): string | null {
  if (p.functionCall) return signatureOf('call', `${p.functionCall.name}:${JSON.stringify(p.functionCall.args ?? {})}`);
  if (p.thought) return signatureOf('thought', p.text ?? '');
  if (p.text !== undefined) return signatureOf('text', p.text);
  return null;
}

/** What Gemini refuses about signatures: one that is not its own, and on Gemini 3 a current-turn call without one. */
function signatureRefusal(body: Record<string, unknown>, model: string): unknown {
  const contents = contentsOf(body);
  for (const c of contents)
    for (const p of c.role === 'model' ? (c.parts ?? []) : [])
      if (p.thoughtSignature !== undefined && p.thoughtSignature !== expectedSignature(p) && p.text !== '')
        return invalid('Corrupted thought signature.');
  if (!model.startsWith('gemini-3')) return null;
  const lastUserText = contents.map((c) => c.role === 'user' && !isResponseTurn(c)).lastIndexOf(true);
  for (const [i, c] of contents.entries()) {
    if (i < lastUserText || c.role !== 'model') continue;
    const first = (c.parts ?? []).findIndex((p) => p.functionCall);
    const call = first === -1 ? undefined : c.parts![first]!;
    if (call && call.thoughtSignature === undefined)
      return invalid(
        `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${call.functionCall!.name}\` , position ${first + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
      );
  }
  return null;
}

function refusal(body: Record<string, unknown>, path: string | undefined): unknown {
  const unknown =
    Object.keys(body).find((k) => !TOP_LEVEL.has(k)) ??
    Object.keys((body.generationConfig as object | undefined) ?? {})
      .filter((k) => !GENERATION.has(k))
      .map((k) => `generation_config.${k}`)[0];
  if (unknown) return invalid(`Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`);
  const model = modelOf(path);
  return thinkingRefusal(body, model) ?? signatureRefusal(body, model);
}

const FINISH = { stop: 'STOP', length: 'MAX_TOKENS', tool: 'STOP' } as const;

function usageOf(t: GeminiTurn) {
  const thoughts = t.thinking ? words(t.thinking).length : 0;
  const candidates = t.blocked || t.safety ? 0 : t.completionTokens;
  return {
    promptTokenCount: t.promptTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: t.promptTokens + candidates + thoughts,
    ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
    ...(t.cacheRead ? { cachedContentTokenCount: t.cacheRead } : {}),
  };
}

/** The call part, signed when the model thinks. */
function callPart(t: GeminiTurn): Part {
  const args = JSON.parse(t.tool!.arguments) as Record<string, unknown>;
  const call: Part = { functionCall: { name: t.tool!.name, args } };
  if (t.thinking) call.thoughtSignature = signatureOf('call', `${t.tool!.name}:${JSON.stringify(args)}`);
  return call;
}

function response(model: string, rest: Record<string, unknown>, usage: unknown, reportUsage: boolean) {
  return {
    ...rest,
    ...(reportUsage ? { usageMetadata: usage } : {}),
    modelVersion: model,
    responseId: GEMINI_RESPONSE_ID,
  };
}

const candidate = (parts: Part[], finish?: string) => ({
  candidates: [{ content: { role: 'model', parts }, ...(finish ? { finishReason: finish } : {}), index: 0 }],
});

/** The whole answer's body. */
function answerOf(t: GeminiTurn, model: string, reportUsage: boolean) {
  if (t.blocked)
    return response(model, { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' } }, usageOf(t), reportUsage);
  if (t.safety) return response(model, { candidates: [{ finishReason: 'SAFETY', index: 0 }] }, usageOf(t), reportUsage);
  const parts: Part[] = t.showThoughts ? [{ text: t.thinking!, thought: true }] : [];
  if (t.tool) parts.push(callPart(t));
  else parts.push({ text: t.text!, ...(t.thinking ? { thoughtSignature: signatureOf('text', t.text!) } : {}) });
  return response(model, candidate(parts, FINISH[t.finish]), usageOf(t), reportUsage);
}

const event = (data: unknown) => `data: ${JSON.stringify(data)}\r\n\r\n`;

/** Gemini's `generateContent` and `streamGenerateContent?alt=sse`. */
export const geminiChatWire: ChatWire = {
  path: ':generateContent',
  matches: (path) => /\/models\/[^/]+:(generateContent|streamGenerateContent)$/.test(path),
  streams: (path) => path.endsWith(':streamGenerateContent'),
  authenticate: (req) =>
    req.headers['x-goog-api-key']
      ? null
      : {
          status: 403,
          body: geminiError(
            403,
            "Method doesn't allow unregistered callers. Please use an API key.",
            'PERMISSION_DENIED',
          ),
        },
  refuse: refusal,
  answer(body, opts) {
    return answerOf(geminiTurn(body, opts.path), modelOf(opts.path), opts.reportUsage);
  },
  events(body, opts) {
    const t = geminiTurn(body, opts.path);
    const model = modelOf(opts.path);
    if (t.blocked || t.safety) return [event(answerOf(t, model, opts.reportUsage))];
    const out: string[] = [];
    const chunk = (parts: Part[], finish?: string) =>
      event(
        finish
          ? response(model, candidate(parts, finish), usageOf(t), opts.reportUsage)
          : response(model, candidate(parts), null, false),
      );
    if (t.showThoughts) out.push(chunk([{ text: t.thinking!, thought: true }]));
    if (t.tool) {
      out.push(chunk([callPart(t)]));
      out.push(chunk([], FINISH[t.finish]));
      return out;
    }
    for (const piece of pieces(t.text ?? '')) out.push(chunk([{ text: piece }]));
    const signed: Part[] = t.thinking ? [{ text: '', thoughtSignature: signatureOf('text', t.text!) }] : [];
    out.push(chunk(signed, FINISH[t.finish]));
    return out;
  },
  errorEvent: event(geminiError(500, 'fake stream failure', 'INTERNAL')),
};
