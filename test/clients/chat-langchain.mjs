// Drives LangChain JS's `ChatOpenAI` (@langchain/openai over @langchain/core) against a running
// Switchyard (SERVER_URL, API_KEY in the environment), pointed at it by `configuration.baseURL`:
// `invoke`, `stream` (chunks concatenated as an app would), and `bindTools` with the tool call
// parsed from a whole and from a streamed answer, then the tool result sent back; and `invoke`
// on the Anthropic route. Prints one JSON object: each call's messages (their plain fields) or error.
import process from 'node:process';
import { ChatOpenAI } from '@langchain/openai';
import { HumanMessage, SystemMessage, ToolMessage } from '@langchain/core/messages';

const chat = (model, extra = {}) =>
  new ChatOpenAI({
    model,
    apiKey: process.env.API_KEY,
    configuration: { baseURL: process.env.SERVER_URL },
    maxRetries: 0,
    temperature: 0,
    ...extra,
  });
const weather = {
  type: 'function',
  function: {
    name: 'weather',
    description: 'The weather in a place',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
};

/** The fields of an AI message the test reads. */
const plain = (m) => ({
  id: m.id,
  content: m.content,
  tool_calls: m.tool_calls,
  usage_metadata: m.usage_metadata,
  response_metadata: m.response_metadata,
});

/** Stream `input` through `model`, concatenating the chunks; the chunk count and the merged message. */
async function streamed(model, input) {
  let merged;
  let count = 0;
  const ids = [];
  for await (const chunk of await model.stream(input)) {
    count++;
    ids.push(chunk.id);
    merged = merged ? merged.concat(chunk) : chunk;
  }
  return { count, ids, message: plain(merged) };
}

const calls = {
  invoke: async () =>
    plain(
      await chat('openai/gpt-4o-mini').invoke([
        new SystemMessage('be brief'),
        new HumanMessage('hello from langchain'),
      ]),
    ),
  stream: () => streamed(chat('openai/gpt-4o-mini'), 'stream from langchain'),
  tools: async () => {
    const model = chat('meta-llama/llama-3.3-70b-instruct').bindTools([weather]);
    const question = new HumanMessage('weather in Kyiv');
    const first = await model.invoke([question]);
    const answer = await model.invoke([
      question,
      first,
      new ToolMessage({ content: 'cloudy', tool_call_id: first.tool_calls[0].id }),
    ]);
    return { first: plain(first), answer: plain(answer) };
  },
  streamTools: () => streamed(chat('meta-llama/llama-3.3-70b-instruct').bindTools([weather]), 'weather in Lviv'),
  anthropic: async () => plain(await chat('anthropic/claude-3.5-haiku', { maxTokens: 64 }).invoke('hello claude')),
};
const out = {};
for (const [name, call] of Object.entries(calls)) {
  try {
    out[name] = await call();
  } catch (e) {
    out[name] = { error: { name: e?.constructor?.name, status: e?.status, message: String(e?.message).slice(0, 500) } };
  }
}
process.stdout.write(JSON.stringify(out));
