/** Amazon Bedrock Converse API wire types (`POST /model/{modelId}/converse` and `/converse-stream`). */

/** Bytes a block carries, base64 in JSON (the SDK's `Uint8Array`). */
export interface BedrockSource {
  bytes: string;
}

/** One content block of a turn or of a tool result. */
export interface BedrockBlock {
  text?: string;
  image?: { format: 'png' | 'jpeg' | 'gif' | 'webp'; source: BedrockSource };
  document?: { format: string; name: string; source: BedrockSource };
  toolUse?: { toolUseId: string; name: string; input: unknown };
  toolResult?: { toolUseId: string; content: BedrockBlock[]; status?: 'success' | 'error' };
  reasoningContent?: { reasoningText?: { text: string; signature?: string }; redactedContent?: string };
  cachePoint?: { type: 'default' };
}

/** One turn: Converse has only `user` and `assistant`, which must alternate. */
export interface BedrockMessage {
  role: 'user' | 'assistant';
  content: BedrockBlock[];
}

/** A tool as Converse declares it. */
export interface BedrockTool {
  toolSpec: { name: string; description?: string; inputSchema: { json: Record<string, unknown> } };
}

/** Whether and which tool the model must call. */
export type BedrockToolChoice =
  { auto: Record<string, never> } | { any: Record<string, never> } | { tool: { name: string } };

/** The Converse request body (the model is in the URL). */
export interface ConverseRequest {
  messages: BedrockMessage[];
  system?: BedrockBlock[];
  inferenceConfig?: { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] };
  toolConfig?: { tools: BedrockTool[]; toolChoice?: BedrockToolChoice };
  /** Fields of the model's own API that Converse has no form for (Claude's `thinking`, `top_k`). */
  additionalModelRequestFields?: Record<string, unknown>;
}
