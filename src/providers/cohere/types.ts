/** Cohere v2 `/v2/embed` wire types. */

/** Request body: `texts` for text, `inputs` for multimodal content. */
export interface CohereEmbedRequest {
  model: string;
  input_type: string;
  embedding_types: ['float'];
  texts?: string[];
  inputs?: Array<{ content: unknown[] }>;
  output_dimension?: number;
}
