/**
 * The embedding provider of the query language's `Embed(text)` (issue 27, DECISIONS D15):
 * an OpenAI-compatible embeddings API (OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio,
 * text-embeddings-inference), configured in trellis.json under "embedding". The main
 * thread embeds a call's texts, all in one request (in chunks past MAX_INPUTS), before the
 * call is sent to a thread: a provider that is down, too slow or answers anything but the
 * expected vectors is 502 embedding_provider_error, naming the provider and the cause, and
 * nothing of the query runs.
 */
import { clip } from '../core/clip.js';
import { GraphError, messageOf } from '../core/errors.js';
import type { EmbeddingConfig } from '../core/embedding-config.js';

/** Texts per request: providers cap a request's inputs (OpenAI at 2048). */
const MAX_INPUTS = 256;
const DEFAULT_TIMEOUT_MS = 10_000;
/** An answer larger than this is not embeddings of a query's texts. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface Embedder {
  /** The vectors of `texts`, in order, by `model` (the query's #[model(...)]) or the configured one. */
  embed(texts: readonly string[], model: string | null): Promise<number[][]>;
}

export function openAiEmbedder(config: EmbeddingConfig, env: NodeJS.ProcessEnv = process.env): Embedder {
  const endpoint = `${config.url.replace(/\/+$/, '')}/embeddings`;
  const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const fail = (model: string, cause: string): GraphError =>
    new GraphError('embedding_provider_error', `the embedding provider ${endpoint} (model "${model}") ${cause}; nothing of the query ran`);

  async function request(inputs: readonly string[], model: string): Promise<number[][]> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (config.api_key_env !== undefined) {
      const key = env[config.api_key_env];
      if (key === undefined || key === '')
        throw fail(model, `needs an API key in the environment variable ${config.api_key_env}, which is not set`);
      headers.authorization = `Bearer ${key}`;
    }
    let res: Response;
    let text: string;
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model, input: inputs }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const timedOut = err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError');
      throw fail(model, timedOut ? `did not answer within ${timeoutMs} ms` : `could not be reached (${causeOf(err)})`);
    }
    if (text.length > MAX_ANSWER_BYTES) throw fail(model, `answered ${text.length} bytes, more than embeddings of ${inputs.length} texts`);
    if (!res.ok) throw fail(model, `answered HTTP ${res.status}: ${clipped(text)}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw fail(model, `answered something that is not JSON: ${clipped(text)}`);
    }
    return vectorsOf(body, inputs.length, (cause) => fail(model, cause));
  }

  function vectorsOf(body: unknown, n: number, bad: (cause: string) => GraphError): number[][] {
    const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
    if (!Array.isArray(data)) throw bad('answered JSON without a "data" list of embeddings');
    if (data.length !== n) throw bad(`answered ${data.length} embeddings for ${n} texts`);
    const out: (number[] | undefined)[] = new Array<number[] | undefined>(n);
    data.forEach((item: unknown, i) => {
      const obj = typeof item === 'object' && item !== null ? (item as { embedding?: unknown; index?: unknown }) : {};
      const index = typeof obj.index === 'number' ? obj.index : i;
      const v = obj.embedding;
      if (!Number.isInteger(index) || index < 0 || index >= n || out[index] !== undefined)
        throw bad(`answered an embedding with the index ${String(obj.index)}, not one of 0 to ${n - 1} once`);
      if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
        throw bad(`answered an embedding (data[${i}].embedding) that is not a list of numbers`);
      if (config.dimensions !== undefined && v.length !== config.dimensions)
        throw bad(`answered a vector of ${v.length} numbers; the configured "dimensions" is ${config.dimensions}`);
      out[index] = v as number[];
    });
    const first = out[0]!.length;
    if (out.some((v) => v!.length !== first)) throw bad('answered vectors of different lengths');
    return out as number[][];
  }

  return {
    async embed(texts, model) {
      const m = model ?? config.model;
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += MAX_INPUTS) out.push(...(await request(texts.slice(i, i + MAX_INPUTS), m)));
      return out;
    },
  };
}

function causeOf(err: unknown): string {
  const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `${code}: ${messageOf(cause)}` : messageOf(cause);
}

function clipped(text: string): string {
  return clip(text.trim()) || '(an empty body)';
}
