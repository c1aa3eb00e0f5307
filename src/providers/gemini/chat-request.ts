/**
 * A canonical exchange → a Gemini generateContent body: system and developer text moves to
 * `systemInstruction`; user and tool turns are `user`, the assistant's `model`; adjacent turns of
 * the same role are merged (the results of parallel calls answer them in one turn); tools become
 * `functionDeclarations` (JSON Schema as sent, `parametersJsonSchema`), the tool choice
 * `toolConfig`, and the sampling, bound, stop, seed, JSON output and reasoning settings
 * `generationConfig`.
 * @module
 */
import type { Endpoint } from '../../catalog/types';
import { cappedCompletion } from '../../catalog/completion-cap';
import type { Exchange, ResponseFormat, Tool, ToolChoice } from '../../inference/exchange';
import type { ChatJob } from '../chat-types';
import { contentPart, modelParts, toolResultParts } from './chat-parts';
import { thinkingConfigOf } from './thinking';
import type { GeminiContent, GeminiGenerateRequest, GeminiGenerationConfig } from './types';

/** The turns and the system instruction of `x`. */
function contentsOf(x: Exchange): { contents: GeminiContent[]; system: Array<{ text: string }> } {
  const contents: GeminiContent[] = [];
  const system: Array<{ text: string }> = [];
  const names = new Map<string, string>();
  for (const m of x.messages) {
    if (m.role === 'system' || m.role === 'developer') {
      for (const p of m.parts) if (p.type === 'text' && p.text !== '') system.push({ text: p.text });
      continue;
    }
    for (const p of m.parts) if (p.type === 'tool_call') names.set(p.id, p.name);
    const turn: GeminiContent =
      m.role === 'assistant'
        ? { role: 'model', parts: modelParts(m) }
        : m.role === 'tool'
          ? { role: 'user', parts: toolResultParts(m, names) }
          : { role: 'user', parts: m.parts.map(contentPart).filter((p) => p !== null) };
    if (turn.parts.length === 0) continue;
    const last = contents[contents.length - 1];
    if (last?.role === turn.role) last.parts.push(...turn.parts);
    else contents.push(turn);
  }
  return { contents, system };
}

function toolsOf(tools: readonly Tool[]): NonNullable<GeminiGenerateRequest['tools']> {
  return [
    {
      functionDeclarations: tools.map((t) => ({
        name: t.name,
        ...(t.description !== undefined ? { description: t.description } : {}),
        ...(t.parameters !== undefined ? { parametersJsonSchema: t.parameters } : {}),
      })),
    },
  ];
}

function toolConfigOf(choice: ToolChoice): NonNullable<GeminiGenerateRequest['toolConfig']> {
  if (typeof choice === 'object')
    return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  return { functionCallingConfig: { mode: choice === 'required' ? 'ANY' : choice === 'none' ? 'NONE' : 'AUTO' } };
}

/** JSON output: `application/json`, with the schema (JSON Schema, `responseJsonSchema`) when one is given. */
function jsonOutput(rf: ResponseFormat | undefined): Partial<GeminiGenerationConfig> {
  if (!rf || rf.type === 'text') return {};
  const schema = rf.type === 'json_schema' && rf.schema ? { responseJsonSchema: rf.schema } : {};
  return { responseMimeType: 'application/json', ...schema };
}

/** The job's `generationConfig`; undefined when it sets nothing. */
function generationConfigOf(job: ChatJob, x: Exchange, endpoint: Endpoint): GeminiGenerationConfig | undefined {
  const bound = cappedCompletion(endpoint, x.maxTokens);
  const config: GeminiGenerationConfig = { ...jsonOutput(x.responseFormat) };
  if (x.temperature !== undefined) config.temperature = x.temperature;
  if (x.topP !== undefined) config.topP = x.topP;
  if (x.topK !== undefined) config.topK = x.topK;
  if (bound !== undefined) config.maxOutputTokens = bound;
  if (x.stop !== undefined && x.stop.length > 0) config.stopSequences = x.stop;
  if (x.seed !== undefined) config.seed = x.seed;
  const thinking = thinkingConfigOf(x.reasoning, endpoint, bound, job.hideReasoning === true);
  if (thinking) config.thinkingConfig = thinking;
  return Object.keys(config).length > 0 ? config : undefined;
}

/** The job as a generateContent body (the model and the stream are in the URL). */
export function toGenerateRequest(job: ChatJob, endpoint: Endpoint): GeminiGenerateRequest {
  const x = job.exchange();
  const { contents, system } = contentsOf(x);
  const out: GeminiGenerateRequest = { contents };
  if (system.length > 0) out.systemInstruction = { parts: system };
  if (x.tools && x.tools.length > 0) {
    out.tools = toolsOf(x.tools);
    if (x.toolChoice !== undefined) out.toolConfig = toolConfigOf(x.toolChoice);
  }
  const config = generationConfigOf(job, x, endpoint);
  if (config) out.generationConfig = config;
  return out;
}
