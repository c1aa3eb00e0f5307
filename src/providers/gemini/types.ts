/** Google Gemini `models/{model}:batchEmbedContents` wire types. */

/** One request of the batch. */
export interface GeminiEmbedContentRequest {
  model: string;
  content: { parts: Array<{ text: string }> };
  taskType?: string;
  outputDimensionality?: number;
}

/** Request body. */
export interface GeminiBatchEmbedRequest {
  requests: GeminiEmbedContentRequest[];
}

// ---- generateContent (chat) ------------------------------------------------------------------

/** Bytes sent inline: an image, audio or document, base64. */
export interface GeminiBlob {
  mimeType: string;
  data: string;
}

/** A call the model made: arguments as an object, matched to its response by `name` (and `id` when sent). */
export interface GeminiFunctionCall {
  name: string;
  args?: Record<string, unknown>;
  id?: string;
}

/** One part of a turn; `thoughtSignature` may sit on any of them and must come back on the same part. */
export interface GeminiPart {
  text?: string;
  /** The part is the model's thought (a summary when `includeThoughts` asked for it). */
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: GeminiBlob;
  /** A file Gemini fetches itself (a public or signed https URL). */
  fileData?: { fileUri: string; mimeType?: string };
  functionCall?: GeminiFunctionCall;
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
}

/** A turn: Gemini's roles are `user` and `model` (tool results go in a `user` turn). */
export interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

/** `generationConfig.thinkingConfig`: a token budget (Gemini 2.5) or a level (Gemini 3). */
export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  /** Sent as the API's enum names, as Google's SDKs send them. */
  thinkingLevel?: 'MINIMAL' | 'LOW' | 'MEDIUM' | 'HIGH';
  includeThoughts?: boolean;
}

/** `generationConfig`, the parts the gateway writes. */
export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  responseMimeType?: string;
  responseJsonSchema?: Record<string, unknown>;
  thinkingConfig?: GeminiThinkingConfig;
}

/** The request body of `models/{model}:generateContent` and `:streamGenerateContent`. */
export interface GeminiGenerateRequest {
  contents: GeminiContent[];
  systemInstruction?: { parts: Array<{ text: string }> };
  tools?: Array<{
    functionDeclarations: Array<{ name: string; description?: string; parametersJsonSchema?: Record<string, unknown> }>;
  }>;
  toolConfig?: { functionCallingConfig: { mode: 'AUTO' | 'ANY' | 'NONE'; allowedFunctionNames?: string[] } };
  generationConfig?: GeminiGenerationConfig;
}
