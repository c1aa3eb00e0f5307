/**
 * The chat benchmarks' one request: a short system and user message for `openai/gpt-4o-mini` from
 * the shipped chat catalog, which bench/chat-upstream.js answers with about 500 completion tokens
 * (or, streamed, 200 SSE events). Shared by bench/chat.js and bench/lib/cases.js (the
 * ladder, the A/B and the profile), so every chat figure measures the same exchange.
 */
'use strict';

/** The chat route under the API prefix, for the gateway and the chat floor. */
const CHAT_ROUTE = '/chat/completions';

const MESSAGES = [
  { role: 'system', content: 'You are a concise assistant for a platform team.' },
  { role: 'user', content: 'Explain in a few paragraphs how an AI gateway routes a request and records its cost.' },
];

/** The client's body to the gateway and the chat floor (the hosted service's model id). */
const chatGatewayBody = (stream) =>
  JSON.stringify({
    model: 'openai/gpt-4o-mini',
    messages: MESSAGES,
    max_tokens: 1024,
    ...(stream ? { stream: true } : {}),
  });

/** The same request as the gateway sends it upstream, for the direct and proxy targets. */
const chatUpstreamBody = (stream) =>
  JSON.stringify({
    model: 'gpt-4o-mini',
    messages: MESSAGES,
    max_tokens: 1024,
    ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
  });

module.exports = { CHAT_ROUTE, chatGatewayBody, chatUpstreamBody };
