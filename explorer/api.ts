/**
 * The explorer's only way to the database: the public routes, on the origin that served
 * the page (a server, or a gateway with a key). The key and the database id are kept in
 * session storage only: they leave with the tab.
 */

const KEY = 'trellis.key';
const DATABASE = 'trellis.database';

/** A session-storage entry; '' when unset (setting '' removes it). */
function sessionValue(name: string): string {
  return sessionStorage.getItem(name) ?? '';
}

function setSessionValue(name: string, value: string): void {
  if (value === '') sessionStorage.removeItem(name);
  else sessionStorage.setItem(name, value);
}

export const apiKey = (): string => sessionValue(KEY);
export const setApiKey = (key: string): void => setSessionValue(KEY, key);
export const databaseId = (): string => sessionValue(DATABASE);
export const setDatabaseId = (id: string): void => setSessionValue(DATABASE, id);

/** A failed request, as the page shows it: the error code and the server's msg. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    msg: string,
  ) {
    super(msg);
  }

  /** One readable line: what happened, and what to do for the usual gateway refusals. */
  describe(): string {
    const hint =
      this.status === 401
        ? 'Check the API key in the key field.'
        : this.code === 'database_id_required'
          ? 'Enter the database id next to the key.'
          : this.code === 'invalid_request' && /authorization/i.test(this.message)
            ? 'This server is a gateway: enter an API key.'
            : '';
    const text = `${this.status} ${this.code}: ${this.message}`;
    return hint === '' ? text : `${text}${/[.!?]$/.test(text) ? '' : '.'} ${hint}`;
  }
}

function headers(json: boolean): Headers {
  const h = new Headers();
  if (json) h.set('content-type', 'application/json');
  const key = apiKey();
  if (key !== '') h.set('authorization', `Bearer ${key}`);
  const db = databaseId();
  if (db !== '') h.set('x-svc-database-id', db);
  return h;
}

/** An answer's text, status and the time it took (ms, to the last byte). */
export interface Answer {
  readonly status: number;
  readonly text: string;
  readonly ms: number;
}

/** One request; resolves with the 2xx answer, rejects with an ApiError. */
async function send(method: 'GET' | 'POST', path: string, body?: string): Promise<Answer> {
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(path, { method, headers: headers(body !== undefined), body, cache: 'no-store' });
  } catch (err) {
    throw new ApiError(0, 'network_error', `the server did not answer (${(err as Error).message})`);
  }
  const answer = { status: response.status, text: await response.text(), ms: performance.now() - started };
  if (!response.ok) throw failure(answer);
  return answer;
}

/** The error of a non-2xx answer: its `{"error","msg"}` body, or the status alone. */
function failure(answer: Answer): ApiError {
  try {
    const body = JSON.parse(answer.text) as { error?: unknown; msg?: unknown };
    if (typeof body.error === 'string') return new ApiError(answer.status, body.error, typeof body.msg === 'string' ? body.msg : '');
  } catch {
    // Not JSON: the status says what there is to say.
  }
  return new ApiError(answer.status, 'http_error', answer.text.slice(0, 200) || `HTTP ${answer.status}`);
}

/** POSTs a JSON body; resolves with the 2xx answer, rejects with an ApiError. */
export const post = (path: string, body: string): Promise<Answer> => send('POST', path, body);

export const get = (path: string): Promise<Answer> => send('GET', path);

/** A Cypher statement's parsed answer. */
export async function cypher(query: string, parameters?: Record<string, unknown>): Promise<{ columns: string[]; rows: unknown[][] }> {
  const answer = await post('/v2/cypher', JSON.stringify(parameters === undefined ? { query } : { query, parameters }));
  return JSON.parse(answer.text) as { columns: string[]; rows: unknown[][] };
}

/**
 * JSON.parse that keeps whether a number was written as an integer: with the source text
 * (Chrome 114+, Firefox 135+) `3.0` is a float; without it, a whole number reads as an integer.
 */
export function numberKinds(text: string): unknown {
  return JSON.parse(text, function (this: unknown, _key: string, value: unknown, context?: { source?: string }) {
    if (typeof value !== 'number') return value;
    const source = context?.source;
    const float = source !== undefined ? /[.eE]/.test(source) : !Number.isInteger(value);
    return { $number: float ? 'float' : 'integer', value };
  } as (this: unknown, key: string, value: unknown) => unknown);
}
