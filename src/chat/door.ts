/**
 * The chat completions door on the inference core: its plan input and job, and its view of an
 * adapter's answers (passed through from an OpenAI-format upstream, else written from canonical
 * form), closed with the gateway's usage chunk and `[DONE]` or the hosted service's error chunk.
 * @module
 */
import type { Door, DoorStream, DoorView } from '../inference/door';
import type { ChatAdapter, ChatStream, ParsedChat } from '../providers/chat-types';
import { budgetStopChunk, completionBody, DONE_EVENT, errorChunk, usageChunk } from './answer';
import { assembleCompletion } from './assemble';
import { BUDGET_STOP } from '../budgets/slices';
import { chatJob } from './job';
import { chatPlanInput } from './plan';
import type { ChatBody } from './types';
import { chatViewOf } from './view';
import { withoutReasoning } from './reasoning-out';

/** The text of a whole answer's choices (content, refusals, tool calls): what the gateway counts when usage is missing. */
function answerText(parsed: ParsedChat): string {
  const parts: string[] = [];
  for (const c of parsed.choices) {
    if (c.message.content) parts.push(c.message.content);
    if (c.message.refusal) parts.push(c.message.refusal);
    if (c.message.reasoning) parts.push(c.message.reasoning);
    for (const call of c.message.tool_calls ?? []) parts.push(call.function.name, call.function.arguments);
  }
  return parts.join('\n');
}

/** A chat stream closed the chat door's way. */
function closing(stream: ChatStream): DoorStream {
  const closed = stream as DoorStream;
  closed.finish = (head, usage, cost) => usageChunk(head, usage, cost) + DONE_EVENT;
  closed.fail = (head, code, message) => errorChunk(head, code, message) + DONE_EVENT;
  closed.cut = (head, usage, cost) => budgetStopChunk(head) + usageChunk(head, usage, cost, BUDGET_STOP) + DONE_EVENT;
  return closed;
}

const views = new WeakMap<ChatAdapter, DoorView>();

/** POST /chat/completions. */
export const CHAT_DOOR: Door<ChatBody> = {
  api: 'chat',
  route: '/api/v1/chat/completions',
  planInput: chatPlanInput,
  job: chatJob,
  failed: (head, code, message) => errorChunk(head, code, message) + DONE_EVENT,
  view(adapter) {
    let view = views.get(adapter);
    if (!view) {
      const chat = chatViewOf(adapter);
      view = {
        parse(body, job) {
          const read = chat.parseResponse(body);
          if (!read || read.choices.length === 0) return null;
          const parsed = job?.hideReasoning ? withoutReasoning(read) : read;
          return {
            usage: parsed.usage,
            finishReason: parsed.finishReason,
            nativeFinishReason: parsed.nativeFinishReason,
            toolCalls: parsed.toolCalls,
            upstreamId: parsed.upstreamId,
            text: () => answerText(read),
            render: (head, usage, cost) => completionBody(head, parsed, usage, cost),
          };
        },
        stream: (head, job) => closing(chat.createStream(head, job?.hideReasoning)),
      };
      views.set(adapter, view);
    }
    return view;
  },
  assemble: assembleCompletion,
  // A whole answer assembled from chunks would lose its log probabilities and a web search's
  // annotations: such a request holds its worst case.
  meters: (body) => body.stream === true || (body.logprobs !== true && body.web_search_options == null),
  endUser: (body) => body.user ?? null,
  sessionId: (body) => body.session_id,
};
