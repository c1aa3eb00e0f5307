/** OpenAI `/embeddings` wire types (also spoken by Mistral, DeepInfra, Together, Nebius, Ollama, vLLM, TEI). */

/** Request body. */
export interface OpenAIEmbeddingsRequest {
  model: string;
  input: string[] | number[][] | Array<{ content: unknown[] }>;
  dimensions?: number;
  encoding_format: 'float' | 'base64';
  user?: string;
}
