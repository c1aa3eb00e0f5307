/** Voyage AI `/v1/embeddings` wire types. */

/** Request body. */
export interface VoyageEmbeddingsRequest {
  input: string[];
  model: string;
  input_type?: 'query' | 'document';
  output_dimension?: number;
}
