/**
 * The project's named queries, read from GET /openapi.json (each `POST /<Name>` operation
 * carries its parameters' JSON Schema), and a form per query built from those types.
 */
import { h } from './dom.js';

export interface NamedQuery {
  readonly name: string;
  readonly write: boolean;
  readonly schema: { properties?: Record<string, Schema>; required?: string[] };
}

interface Schema {
  type?: string;
  format?: string;
  description?: string;
  anyOf?: Schema[];
  items?: Schema;
}

/** The named queries of an OpenAPI document (operations marked `x-trellis-query`). */
export function namedQueriesOf(doc: unknown): NamedQuery[] {
  const paths = (doc as { paths?: Record<string, { post?: Record<string, unknown> }> }).paths ?? {};
  const out: NamedQuery[] = [];
  for (const [path, item] of Object.entries(paths)) {
    const mark = item.post?.['x-trellis-query'] as { name: string; write: boolean } | undefined;
    if (mark === undefined) continue;
    const body = item.post?.requestBody as { content?: Record<string, { schema?: NamedQuery['schema'] }> } | undefined;
    out.push({ name: mark.name ?? path.slice(1), write: mark.write, schema: body?.content?.['application/json']?.schema ?? {} });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

type Reader = () => unknown;

/** One input for a parameter of `schema`'s type, and how to read its value back. */
function field(name: string, schema: Schema): { input: HTMLElement; read: Reader } {
  const id = `param-${name}`;
  if (schema.type === 'boolean') {
    const input = h('input', { id, type: 'checkbox', 'data-testid': id });
    return { input, read: () => input.checked };
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    const input = h('input', { id, type: 'number', step: schema.type === 'integer' ? '1' : 'any', 'data-testid': id });
    return { input, read: () => (input.value === '' ? undefined : Number(input.value)) };
  }
  if (schema.type === 'string' && schema.format === 'date-time') {
    const input = h('input', { id, type: 'text', placeholder: '2026-01-02T03:04:05Z', 'data-testid': id });
    return { input, read: () => (input.value === '' ? undefined : input.value) };
  }
  if (schema.type === 'string') {
    const input = h('input', { id, type: 'text', 'data-testid': id });
    return { input, read: () => (input.value === '' ? undefined : input.value) };
  }
  if (schema.anyOf !== undefined) {
    // An ID: digits, sent as a number when safe.
    const input = h('input', { id, type: 'text', inputmode: 'numeric', 'data-testid': id });
    return { input, read: () => (input.value === '' ? undefined : /^\d{1,15}$/.test(input.value) ? Number(input.value) : input.value) };
  }
  const input = h('textarea', {
    id,
    rows: 2,
    cols: 40,
    placeholder: schema.type === 'array' ? '[ ... ] as JSON' : 'JSON',
    'data-testid': id,
  });
  return {
    input,
    read: () => {
      if (input.value.trim() === '') return undefined;
      try {
        return JSON.parse(input.value) as unknown;
      } catch {
        throw new Error(`${name}: not valid JSON`);
      }
    },
  };
}

/** Fills `form` with the query's fields; returns a reader of the parameters as a JSON body. */
export function buildForm(form: HTMLFormElement, query: NamedQuery): () => string {
  const properties = query.schema.properties ?? {};
  const required = new Set(query.schema.required ?? []);
  const readers: [string, Reader][] = [];
  const rows: HTMLElement[] = [h('h3', {}, `POST /${query.name}`, query.write ? h('span', { class: 'muted' }, ' · may write') : null)];
  for (const [name, schema] of Object.entries(properties)) {
    const { input, read } = field(name, schema);
    readers.push([name, read]);
    const type = schema.description ?? schema.type ?? 'value';
    rows.push(
      h('label', { for: `param-${name}` }, `${name}${required.has(name) ? '' : '?'}`),
      h('span', {}, input, ' ', h('span', { class: 'muted' }, type)),
    );
  }
  if (readers.length === 0) rows.push(h('p', { class: 'muted' }, 'This query takes no parameters.'));
  form.replaceChildren(...rows);
  return () => {
    const body: Record<string, unknown> = {};
    for (const [name, read] of readers) {
      const value = read();
      if (value !== undefined) body[name] = value;
    }
    return JSON.stringify(body);
  };
}
