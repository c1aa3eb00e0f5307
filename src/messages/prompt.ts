/**
 * The Messages door's reading of its body for routing and accounting: the modalities of the
 * input, the routable parameters set, the user's texts, and the prompt counted with the gateway's
 * tokenizer (the same count POST /messages/count_tokens answers).
 * @module
 */
import type { ChatParameter, Modality } from '../catalog/types';
import type { ChatPrompt } from '../chat/prompt';
import { modelIds } from '../chat/plan';
import type { PlanInput } from '../inference/door';
import { promptTokens, withSize } from '../chat/prompt-size';
import type { Block, CountTokensBody, MessagesAsk, MessagesTurn } from './types';

/** Tokens an image or document block counts for when the gateway counts it (as the chat door counts media). */
const MEDIA_BLOCK_TOKENS = 765;
/** Tokens each turn adds around its content. */
const PER_TURN_TOKENS = 4;

/** Body fields whose presence makes an endpoint that ignores them a poor match (`provider.require_parameters`). */
const SET_PARAMETERS: ReadonlyArray<readonly [string, ChatParameter]> = [
  ['tools', 'tools'],
  ['tool_choice', 'tool_choice'],
  ['stop_sequences', 'stop'],
  ['temperature', 'temperature'],
  ['top_p', 'top_p'],
  ['top_k', 'top_k'],
  ['max_tokens', 'max_tokens'],
];

/** A turn's content as blocks. */
export function blocksOf(content: MessagesTurn['content']): readonly Block[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** What one pass over the turns collects. */
interface Collected {
  modalities: Set<Modality>;
  texts: string[];
  /** JSON the prompt carries (tools, tool inputs, other blocks), sized by its texts. */
  values: unknown[];
  userTexts: string[];
  media: number;
}

/** The texts of one block (and of the blocks inside a tool result); media blocks are counted apart. */
function collect(block: Block, role: string, into: Collected): void {
  const b = block as Record<string, unknown>;
  switch (b.type) {
    case 'text':
      into.texts.push(String(b.text));
      if (role === 'user') into.userTexts.push(String(b.text));
      return;
    case 'image':
    case 'document':
      into.media++;
      into.modalities.add(b.type === 'image' ? 'image' : 'file');
      return;
    case 'thinking':
      into.texts.push(String(b.thinking));
      return;
    case 'tool_use':
      into.texts.push(String(b.name));
      into.values.push(b.input ?? {});
      return;
    case 'tool_result':
      if (typeof b.content === 'string') into.texts.push(b.content);
      else if (Array.isArray(b.content)) for (const inner of b.content as Block[]) collect(inner, 'tool', into);
      return;
    default: // redacted thinking and unknown blocks: their JSON, so they are never free
      into.values.push(b);
  }
}

/** One pass over a Messages body's system prompt, turns and tools. */
function collected(body: CountTokensBody): Collected {
  const c: Collected = { modalities: new Set<Modality>(['text']), texts: [], values: [], userTexts: [], media: 0 };
  const system = body.system;
  if (typeof system === 'string') c.texts.push(system);
  else for (const b of system ?? []) c.texts.push(b.text);
  for (const turn of body.messages) for (const block of blocksOf(turn.content)) collect(block, turn.role, c);
  if (body.tools) c.values.push(body.tools);
  return c;
}

/**
 * Read a Messages (or count_tokens) body once for everything routing, budgeting and the samplers
 * need. The exact count, when asked for, reads the body again rather than keep every text until then.
 */
export function readMessagesPrompt(body: CountTokensBody & { max_tokens?: number }): ChatPrompt {
  const c = collected(body);
  const parameters = new Set<ChatParameter>();
  const fields = body as Record<string, unknown>;
  for (const [field, parameter] of SET_PARAMETERS) if (fields[field] !== undefined) parameters.add(parameter);
  const thinking = (fields.thinking as { type?: string } | undefined)?.type;
  if (thinking === 'enabled' || thinking === 'adaptive') parameters.add('reasoning');
  const fixed = c.media * MEDIA_BLOCK_TOKENS + body.messages.length * PER_TURN_TOKENS;
  return withSize(
    { modalities: c.modalities, modalityLabel: [...c.modalities].join('+'), parameters, userTexts: c.userTexts },
    promptTokens(c, fixed, () => collected(body)),
  );
}

/** The Messages door's plan input: `model` then `models`, bound by `max_tokens` (required here). */
export function messagesPlanInput({ body }: MessagesAsk): PlanInput {
  return {
    modelIds: modelIds(body.model, body.models),
    provider: body.provider,
    prompt: readMessagesPrompt(body),
    maxTokens: body.max_tokens,
    stream: body.stream === true,
  };
}
