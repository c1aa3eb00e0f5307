// Drives the reasoning readers of two SDKs against a running Switchyard (SERVER_URL, API_KEY in the
// environment): LangChain JS's `ChatOpenRouter` (@langchain/openrouter, which reads the hosted
// service's `reasoning` and `reasoning_details`) invoked and streamed, and the Vercel AI SDK
// (`ai` over `@ai-sdk/openai-compatible`, which reads `reasoning`) with generateText and
// streamText, each on a Claude model asked to reason. Prints one JSON object: each call's
// reasoning as the SDK exposes it, or the error.
import process from 'node:process';
import { ChatOpenRouter } from '@langchain/openrouter';
import { generateText, streamText } from 'ai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';

const MODEL = 'anthropic/claude-sonnet-4.5';
const reasoning = { effort: 'low' };
const langchain = () =>
  new ChatOpenRouter({
    model: MODEL,
    apiKey: process.env.API_KEY,
    baseURL: process.env.SERVER_URL,
    maxTokens: 4000,
    modelKwargs: { reasoning },
  });
const gateway = createOpenAICompatible({
  name: 'switchyard',
  baseURL: process.env.SERVER_URL,
  apiKey: process.env.API_KEY,
  includeUsage: true,
});
const aiOptions = {
  model: gateway(MODEL),
  prompt: 'think first',
  maxOutputTokens: 4000,
  maxRetries: 0,
  providerOptions: { switchyard: { reasoning } },
};

/** What the test reads of a LangChain message. */
const plainLc = (m) => ({
  content: m.content,
  reasoning_content: m.additional_kwargs?.reasoning_content,
  reasoning_details: m.additional_kwargs?.reasoning_details,
  output_token_details: m.usage_metadata?.output_token_details,
});

const calls = {
  langchainInvoke: async () => plainLc(await langchain().invoke('think first')),
  langchainStream: async () => {
    let merged;
    for await (const chunk of await langchain().stream('think first')) merged = merged ? merged.concat(chunk) : chunk;
    return plainLc(merged);
  },
  aiGenerate: async () => {
    const r = await generateText(aiOptions);
    return { text: r.text, reasoningText: r.reasoningText, usage: r.usage };
  },
  aiStream: async () => {
    const r = streamText({ ...aiOptions, onError: () => undefined });
    for await (const piece of r.textStream) void piece;
    return { text: await r.text, reasoningText: await r.reasoningText, usage: await r.usage };
  },
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
