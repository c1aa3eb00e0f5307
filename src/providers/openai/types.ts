/** OpenAI `/embeddings` wire types (also spoken by Mistral, DeepInfra, Together, Nebius, Ollama, vLLM, TEI). */

/** Request body. */
export interface OpenAIEmbeddingsRequest {
  model: string;
  input: string[] | number[][] | Array<{ content: unknown[] }>;
  dimensions?: number;
  encoding_format: 'float' | 'base64';
  user?: string;
}

/** Response body (the fields we read). */
export interface OpenAIEmbeddingsResponse {
  id?: string;
  data: Array<{ embedding: number[] | string; index?: number }>;
  usage?: { prompt_tokens?: number; total_tokens?: number };
}
