/**
 * What routing and accounting need from a Responses request, read from its canonical form: the
 * input's modalities, the routable parameters it sets, the user's texts and the prompt's tokens
 * (counted as the chat door counts them).
 * @module
 */
import { wantsReasoning } from '../inference/reasoning';
import type { ChatParameter, Modality } from '../catalog/types';
import type { ChatPrompt } from '../chat/prompt';
import type { Exchange, Part } from '../inference/exchange';
import { promptTokens, withSize } from '../chat/prompt-size';

/** As the chat door's: a typical image tile, and each message's role and separators. */
const MEDIA_PART_TOKENS = 765;
const PER_MESSAGE_TOKENS = 4;

/** The routable parameters `x` sets. */
function parametersOf(x: Exchange): Set<ChatParameter> {
  const set = new Set<ChatParameter>();
  if (x.tools) set.add('tools');
  if (x.toolChoice !== undefined) set.add('tool_choice');
  if (x.parallelToolCalls !== undefined) set.add('parallel_tool_calls');
  if (x.responseFormat) set.add('response_format');
  if (x.responseFormat?.type === 'json_schema') set.add('structured_outputs');
  if (x.temperature !== undefined) set.add('temperature');
  if (x.topP !== undefined) set.add('top_p');
  if (x.maxTokens !== undefined) set.add('max_tokens');
  if (wantsReasoning(x.reasoning)) set.add('reasoning');
  return set;
}

/** Read `x` once for everything routing, budgeting and the samplers need. */
export function promptOf(x: Exchange): ChatPrompt {
  const modalities = new Set<Modality>(['text']);
  const texts: string[] = [];
  const userTexts: string[] = [];
  let media = 0;
  const visit = (p: Part, user: boolean): void => {
    switch (p.type) {
      case 'text':
        texts.push(p.text);
        if (user) userTexts.push(p.text);
        return;
      case 'image':
      case 'audio':
        media++;
        modalities.add(p.type);
        return;
      case 'file':
        media++;
        modalities.add('file');
        return;
      case 'tool_call':
        texts.push(p.name, p.arguments);
        return;
      case 'tool_result':
        if (typeof p.content === 'string') texts.push(p.content);
        else for (const inner of p.content) visit(inner, false);
        return;
      case 'reasoning':
        if (p.text) texts.push(p.text);
        return;
    }
  };
  for (const m of x.messages) for (const p of m.parts) visit(p, m.role === 'user');
  const values: unknown[] = [];
  if (x.tools) values.push(x.tools);
  if (x.responseFormat?.type === 'json_schema') values.push(x.responseFormat.schema ?? {});
  const fixed = media * MEDIA_PART_TOKENS + x.messages.length * PER_MESSAGE_TOKENS;
  return withSize(
    { modalities, modalityLabel: [...modalities].join('+'), parameters: parametersOf(x), userTexts },
    promptTokens({ texts, values }, fixed),
  );
}
