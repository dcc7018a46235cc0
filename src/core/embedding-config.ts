/** The embedding provider's settings (trellis.json `"embedding"`; src/config.ts reads them, src/server/embedding.ts uses them). */

/**
 * An OpenAI-compatible embeddings API (OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio,
 * text-embeddings-inference): Trellis POSTs `{"model", "input"}` to `<url>/embeddings`.
 */
export interface EmbeddingConfig {
  /** The API base as OpenAI clients take it, e.g. `http://127.0.0.1:11434/v1`. */
  readonly url: string;
  readonly model: string;
  /** The vectors' dimension, checked on every answer (and sent, as OpenAI's `dimensions`). */
  readonly dimensions?: number;
  /** The environment variable holding the API key (sent as `Authorization: Bearer`). */
  readonly api_key_env?: string;
  /** How long one request may take (ms; default 10000). */
  readonly timeout_ms?: number;
}

/**
 * HelixDB's provider when a project names none (reference §4.1: `embedding_model` defaults
 * to OpenAI's text-embedding-ada-002), with the key where HelixDB read it: a HelixDB project
 * that relied on it runs as it did once OPENAI_API_KEY is set.
 */
export const HELIXDB_DEFAULT_EMBEDDING: EmbeddingConfig = {
  url: 'https://api.openai.com/v1',
  model: 'text-embedding-ada-002',
  api_key_env: 'OPENAI_API_KEY',
};
