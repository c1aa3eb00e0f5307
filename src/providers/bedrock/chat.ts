/**
 * `adapter: bedrock`: Amazon Bedrock's Converse API, mapped from and to the canonical exchange,
 * authenticated by a Bedrock API key (bearer) or AWS Signature V4.
 * @module
 */
import type { ChatAdapter } from '../chat-types';
import { converseUrl, headers, isOverloaded, isUnavailable } from './api';
import { toConverseRequest } from './request';
import { fromConverseResponse } from './response';
import { signRequest } from './sigv4';
import { BedrockEvents } from './stream';
import { DOCUMENT_FORMATS } from './content';

/** The Bedrock Converse wire format. */
export const bedrockChatAdapter: ChatAdapter = {
  name: 'bedrock',
  format: 'bedrock-converse',
  buildRequest: (job, endpoint, key) => ({
    url: converseUrl(endpoint, job.stream),
    headers: headers(key, job.stream),
    body: JSON.stringify(toConverseRequest(job, endpoint)),
  }),
  // A request with a Bedrock API key carries it as a bearer token; without one it is signed.
  authorize: async (req, endpoint, key) => {
    const aws = endpoint.provider.aws;
    if (!key && aws) await signRequest(req, endpoint.provider, aws);
  },
  parseAnswer: fromConverseResponse,
  createEvents: () => new BedrockEvents(),
  isOverloaded,
  isUnavailable,
  media: { imageUrls: false, readsDocument: (type) => DOCUMENT_FORMATS[type] !== undefined },
  jsonOutput: 'none',
  thinksByBudget: (e) => e.thinking === 'budget',
};
