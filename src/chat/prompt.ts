/**
 * What routing and accounting need from a chat request before it goes anywhere: the modalities
 * of its input, the routable parameters it sets, the texts the rankings and classifiers look at,
 * and its prompt's size (a bound, and the count with the tokenizer the gateway ships when needed).
 * @module
 */
import type { ChatParameter, Modality } from '../catalog/types';
import { wantsReasoning } from '../inference/reasoning';
import { reasoningOf } from './reasoning-in';
import { promptTokens, withSize, type PromptParts, type PromptTokens } from './prompt-size';
import type { ChatBody, ChatContentPart, ChatMessage } from './types';

/** Tokens an image or audio part counts for in a prompt when the gateway counts it (a typical tile or clip). */
const MEDIA_PART_TOKENS = 765;
/** Tokens each message adds around its content (role and separators, as OpenAI's chat format does). */
const PER_MESSAGE_TOKENS = 4;

/** Parameters whose presence makes an endpoint that ignores them a poor match (`provider.require_parameters`). */
const SET_PARAMETERS: ReadonlyArray<readonly [keyof ChatBody, ChatParameter]> = [
  ['tools', 'tools'],
  ['tool_choice', 'tool_choice'],
  ['parallel_tool_calls', 'parallel_tool_calls'],
  ['response_format', 'response_format'],
  ['seed', 'seed'],
  ['logprobs', 'logprobs'],
  ['top_logprobs', 'top_logprobs'],
  ['stop', 'stop'],
  ['temperature', 'temperature'],
  ['top_p', 'top_p'],
  ['top_k', 'top_k'],
  ['max_tokens', 'max_tokens'],
  ['max_completion_tokens', 'max_tokens'],
  ['frequency_penalty', 'frequency_penalty'],
  ['presence_penalty', 'presence_penalty'],
  ['repetition_penalty', 'repetition_penalty'],
  ['logit_bias', 'logit_bias'],
  ['min_p', 'min_p'],
  ['prediction', 'prediction'],
  ['service_tier', 'service_tier'],
  ['prompt_cache_key', 'prompt_cache_key'],
  ['verbosity', 'verbosity'],
  ['web_search_options', 'web_search_options'],
  ['top_a', 'top_a'],
];

/** The request's input as routing sees it. */
export interface ChatPrompt extends PromptTokens {
  modalities: ReadonlySet<Modality>;
  /** The usage record's `input_modality` label, e.g. `text+image`. */
  modalityLabel: string;
  parameters: ReadonlySet<ChatParameter>;
  /** The user's texts, for the rankings sampler and the workspace classifiers. */
  userTexts: string[];
}

function partsOf(content: string | ChatContentPart[] | null | undefined): ChatContentPart[] {
  if (content === null || content === undefined) return [];
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** What one pass over the messages collects. */
interface Collected {
  modalities: Set<Modality>;
  /** Every text the prompt counts: message texts, tool calls' names and arguments. */
  texts: string[];
  userTexts: string[];
  /** Image and audio parts. */
  media: number;
}

function collect(m: ChatMessage, into: Collected): void {
  for (const part of partsOf(m.content)) {
    if (part.type === 'text') {
      into.texts.push(part.text);
      if (m.role === 'user') into.userTexts.push(part.text);
      continue;
    }
    into.media++;
    if (part.type === 'file') {
      // A document counts for at most its bytes (its base64 text is longer than its tokens).
      into.modalities.add('file');
      into.texts.push(part.file.file_data ?? '');
      continue;
    }
    into.modalities.add(part.type === 'image_url' ? 'image' : 'audio');
  }
  if (m.role !== 'assistant') return;
  if (m.tool_calls) for (const call of m.tool_calls) into.texts.push(call.function.name, call.function.arguments);
  // Reasoning sent back is input too (signatures and encrypted blocks as their bytes).
  for (const d of m.reasoning_details ?? [])
    into.texts.push(d.text ?? d.summary ?? '', d.signature ?? '', d.data ?? '');
}

/** One pass over `body`'s messages. */
function collected(body: ChatBody): Collected {
  const c: Collected = { modalities: new Set<Modality>(['text']), texts: [], userTexts: [], media: 0 };
  for (const m of body.messages) collect(m, c);
  return c;
}

/** What the prompt is counted by: the messages' texts (of `c`, one pass over them) and the JSON it carries (tools, a structured output's schema). */
function promptPartsOf(body: ChatBody, c: Collected = collected(body)): PromptParts {
  const values: unknown[] = [];
  if (body.tools) values.push(body.tools);
  if (body.response_format?.type === 'json_schema') values.push(body.response_format.json_schema);
  return { texts: c.texts, values };
}

/**
 * Read `body` once for everything routing, budgeting and the samplers need. The exact count, when
 * asked for, reads the body again rather than keep every text of the prompt until then.
 */
export function readPrompt(body: ChatBody): ChatPrompt {
  const c = collected(body);
  const parameters = new Set<ChatParameter>();
  for (const [field, parameter] of SET_PARAMETERS)
    if (body[field] !== undefined && body[field] !== null) parameters.add(parameter);
  if (body.response_format?.type === 'json_schema') parameters.add('structured_outputs');
  if (wantsReasoning(reasoningOf(body))) parameters.add('reasoning');
  const { modalities, userTexts } = c;
  const fixed = c.media * MEDIA_PART_TOKENS + body.messages.length * PER_MESSAGE_TOKENS;
  const size = promptTokens(promptPartsOf(body, c), fixed, () => promptPartsOf(body));
  return withSize({ modalities, modalityLabel: [...modalities].join('+'), parameters, userTexts }, size);
}
