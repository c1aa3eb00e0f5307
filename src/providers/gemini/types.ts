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
