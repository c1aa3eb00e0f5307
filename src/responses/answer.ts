/**
 * A whole answer through the Responses door: the adapter's canonical answer as output items, in
 * the order the parts came (adjacent texts one message), and the `response` body.
 * @module
 */
import type { DoorAnswer } from '../inference/door';
import type { Answer } from '../inference/exchange';
import type { StreamHead } from '../providers/chat-types';
import { callItem, itemId, messageItem, reasoningItem, responseJson, statusOf, usageOf } from './response';
import type { OutputItem } from './response';
import type { Echo } from './echo';
import type { ToolSet } from './tools';

/** The answer's parts as output items. */
export function outputOf(answer: Answer, tools: ToolSet, head: StreamHead): OutputItem[] {
  const out: OutputItem[] = [];
  let text: string | null = null;
  const flush = () => {
    if (text !== null) out.push(messageItem(itemId('msg', head, out.length), text, 'completed'));
    text = null;
  };
  for (const p of answer.parts) {
    if (p.type === 'text') text = (text ?? '') + p.text;
    else if (p.type === 'reasoning') {
      flush();
      out.push(reasoningItem(itemId('rs', head, out.length), p.text ?? null, p.encrypted ?? null));
    } else if (p.type === 'tool_call') {
      flush();
      const origin = tools.origin(p.name);
      const prefix = origin.kind === 'custom' ? 'ctc' : 'fc';
      out.push(callItem(itemId(prefix, head, out.length), p.id, origin, p.arguments, 'completed'));
    }
  }
  flush();
  return out;
}

/** The texts the gateway counts when the upstream reported no usage. */
function answerText(answer: Answer): string {
  const texts: string[] = [];
  for (const p of answer.parts) {
    if (p.type === 'text') texts.push(p.text);
    else if (p.type === 'reasoning' && p.text) texts.push(p.text);
    else if (p.type === 'tool_call') texts.push(p.name, p.arguments);
  }
  return texts.join('\n');
}

/** `answer` as the door's whole answer. */
export function doorAnswerOf(answer: Answer, tools: ToolSet, echo: Echo): DoorAnswer {
  return {
    usage: answer.usage,
    finishReason: answer.stopReason,
    nativeFinishReason: answer.nativeStopReason,
    toolCalls: answer.parts.filter((p) => p.type === 'tool_call').length,
    upstreamId: answer.upstreamId,
    text: () => answerText(answer),
    render: (head, usage, cost) =>
      responseJson(head, echo, {
        ...statusOf(answer.stopReason),
        output: outputOf(answer, tools, head),
        usage: usageOf(usage, cost),
      }),
  };
}
