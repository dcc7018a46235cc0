/**
 * The online import: the same reading and key lookup as offline (load.ts), each batch
 * sent to a running server (or a gateway, with --key) as `/v2/query` write requests of the
 * v2 contract: a `for_each` over the rows, whose parameter the server reads as a row table
 * (docs/architecture.md, "Row tables"), with the batch's first row created by a named
 * entry before it so the answer carries the first id (the ids of one request follow one by
 * one: a batch is one transaction). Every request is all or nothing; an import that stops
 * keeps the requests acknowledged before it, whole.
 *
 * Rows of one request have the same properties (a for_each body assigns every property
 * it names), so a batch is split by which properties its rows have.
 *
 * What JSON parameters cannot carry is refused with its row: date-times, bytes, NaN and
 * infinities (docs/import-export.md, "Online imports"); typed arrays (vectors) arrive as
 * plain arrays of numbers.
 */
import { Agent, request as httpRequest } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { DateTime, type Value } from '../core/value.js';
import type { IndexSpec } from '../core/index-spec.js';
import type { BulkColumn } from '../store/index.js';
import { doubleText } from './formats.js';
import { runImport, type Sink, type Summary } from './load.js';
import type { ImportPlan } from './plan.js';
import type { Progress } from './progress.js';

/** The gateway refuses bodies over 2 MiB, the server over 16 MiB (its default). */
const GATEWAY_BODY = 1_900_000;
const SERVER_BODY = 15_000_000;
/** Requests in flight at once: the server parses one while its writer applies the other. */
const IN_FLIGHT = 2;

export class OnlineImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OnlineImportError';
  }
}

/** A value as an untyped JSON parameter, or a reason it cannot be one. */
function jsonValue(v: Value): string {
  switch (typeof v) {
    case 'bigint':
    case 'boolean':
      return String(v);
    case 'number':
      if (!Number.isFinite(v))
        throw new OnlineImportError(`${doubleText(v)} cannot be sent online (JSON numbers are finite); use the offline import`);
      return doubleText(v);
    case 'string':
      return JSON.stringify(v);
  }
  if (v === null) return 'null';
  if (v instanceof DateTime) throw new OnlineImportError('date-time values cannot be sent as /v2/query parameters; use the offline import');
  if (v instanceof Uint8Array) throw new OnlineImportError('bytes values cannot be sent as /v2/query parameters; use the offline import');
  if (ArrayBuffer.isView(v)) return `[${Array.from(v as ArrayLike<number | bigint>, (x) => jsonValue(x)).join(',')}]`;
  if (Array.isArray(v)) return `[${v.map(jsonValue).join(',')}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${JSON.stringify(k)}:${jsonValue(x)}`)
    .join(',')}}`;
}

const param = (name: string) => ({ expr: { param: name } });

/** The request of one shape: the first row named `first`, the rest in a for_each over `rows`. */
function requestText(head: object, firstParams: string, rows: string[]): string {
  const body = JSON.stringify(head);
  const params = rows.length === 0 ? `{${firstParams}}` : `{${firstParams}${firstParams === '' ? '' : ','}"rows":[${rows.join(',')}]}`;
  return `{"parameters":${params},${body.slice(1)}`;
}

interface Reply {
  readonly status: number;
  readonly body: string;
}

class Client {
  private readonly agent: Agent;
  private readonly url: URL;
  private readonly headers: Record<string, string>;

  constructor(base: string, key: string | undefined) {
    this.url = new URL('/v2/query', base);
    this.agent = this.url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
    this.headers = { 'content-type': 'application/json', ...(key === undefined ? {} : { authorization: `Bearer ${key}` }) };
  }

  post(text: string): Promise<Reply> {
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        this.url,
        { method: 'POST', agent: this.agent, headers: { ...this.headers, 'content-length': Buffer.byteLength(text) } },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', reject);
        },
      );
      req.on('error', (err) => reject(new OnlineImportError(`cannot reach ${this.url.origin}: ${err.message}`)));
      req.end(text);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** The error of a refused request, in one line. */
function refused(reply: Reply, what: string): OnlineImportError {
  let msg = reply.body.slice(0, 500);
  try {
    const parsed = JSON.parse(reply.body) as { error?: string; msg?: string };
    if (parsed.error !== undefined) msg = `${parsed.error}: ${parsed.msg ?? ''}`;
  } catch {
    // not JSON: the text as it is
  }
  return new OnlineImportError(`the server refused ${what} (HTTP ${reply.status}, ${msg})`);
}

/**
 * Sends rows of one label: split by shape (which properties are present), then into
 * requests under the body limit; resolves with each row's id (NaN for none: edges).
 */
class OnlineSink implements Sink {
  private readonly maxBody: number;

  constructor(
    private readonly client: Client,
    gateway: boolean,
    private readonly batchRows: number,
  ) {
    this.maxBody = gateway ? GATEWAY_BODY : SERVER_BODY;
  }

  async addNodes(label: string, count: number, columns: BulkColumn[]): Promise<ArrayLike<number>> {
    const ids = new Float64Array(count);
    await this.send(label, count, columns, null, null, (rows, first) => rows.forEach((r, k) => (ids[r] = first + k)));
    return ids;
  }

  async addEdges(label: string, from: Float64Array, to: Float64Array, count: number, columns: BulkColumn[]): Promise<void> {
    await this.send(label, count, columns, from, to, () => {});
  }

  private async send(
    label: string,
    count: number,
    columns: BulkColumn[],
    from: Float64Array | null,
    to: Float64Array | null,
    created: (rows: number[], first: number) => void,
  ): Promise<void> {
    // Rows by shape: the columns a row has, as a bit string (one shape when no cell is missing).
    const shapes = new Map<string, number[] | null>();
    if (columns.every((c) => (c.kind === 'value' ? !c.values.includes(undefined) : c.present === null))) {
      shapes.set('1'.repeat(columns.length), null);
    } else {
      for (let i = 0; i < count; i++) {
        let shape = '';
        // Presence read directly (cellOf would make a bigint per i64 cell to say the same).
        for (const c of columns) shape += (c.kind === 'value' ? c.values[i] === undefined : c.present?.[i] === 0) ? '0' : '1';
        let rows = shapes.get(shape);
        if (rows === undefined) shapes.set(shape, (rows = []));
        rows!.push(i);
      }
    }
    for (const [shape, listed] of shapes) {
      const rows = listed ?? Array.from({ length: count }, (_, i) => i);
      const used = columns.filter((_, c) => shape[c] === '1');
      const names = used.map((_, c) => `p${c}`);
      const properties = used.map((c, k) => [c.name, param(names[k]!)]);
      const root =
        from === null
          ? { add_n: { label, properties } }
          : { add_e: { input: { nodes: { reference: { param: 'f' } } }, label, to: { param: 't' }, properties } };
      // Each column's cell as JSON text, without a Value per cell for numbers.
      const cells = used.map((c, k): ((i: number) => string) => {
        const prefix = `"${names[k]}":`;
        if (c.kind === 'i64') return (i) => prefix + c.values[i];
        if (c.kind === 'f64') {
          const values = c.values;
          return (i) => {
            const v = values[i]!;
            return prefix + (Number.isInteger(v) || !Number.isFinite(v) ? jsonValue(v) : v);
          };
        }
        return (i) => prefix + jsonValue(c.values[i]!);
      });
      const rowText = (i: number, asParams: boolean): string => {
        let text = from === null ? '' : `"f":${from[i]},"t":${to![i]}`;
        for (const cell of cells) text += (text === '' ? '' : ',') + cell(i);
        return asParams ? text : `{${text}}`;
      };
      for (let at = 0; at < rows.length;) {
        // One request: the first row named, the others in the for_each, under the body limit.
        const firstRow = rows[at]!;
        const first = rowText(firstRow, true);
        const more: string[] = [];
        let size = first.length + 1024;
        let next = at + 1;
        while (next < rows.length && more.length + 1 < this.batchRows) {
          const text = rowText(rows[next]!, false);
          if (size + text.length + 1 > this.maxBody) break;
          more.push(text);
          size += text.length + 1;
          next++;
        }
        const batchRows = rows.slice(at, next);
        const entries: object[] = [{ query: { name: 'first', root } }];
        if (more.length > 0) entries.push({ for_each: { param: 'rows', body: [{ query: { root } }] } });
        const head = { request_type: 'write', query: { write: { entries, returns: ['first'] } } };
        const text = requestText(head, first, more);
        const what = `a batch of ${batchRows.length} ${from === null ? 'nodes' : 'edges'} of ${label}`;
        const job = this.client.post(text).then((reply) => {
          if (reply.status !== 200) throw refused(reply, what);
          const id = /"\$id":(\d+)/.exec(reply.body)?.[1];
          if (id === undefined) throw new OnlineImportError(`the server's answer to ${what} names no id: ${reply.body.slice(0, 200)}`);
          created(batchRows, Number(id));
        });
        await this.track(job);
        at = next;
      }
    }
    // Nodes wait for their ids; edges go on while their requests are in flight.
    if (from === null) await this.flush();
  }

  /** Requests in flight; their first failure is thrown by the next track or flush. */
  private readonly pending = new Set<Promise<void>>();
  private failure: unknown = null;

  private async track(job: Promise<void>): Promise<void> {
    const tracked: Promise<void> = job.then(
      () => void this.pending.delete(tracked),
      (err: unknown) => {
        this.pending.delete(tracked);
        this.failure ??= err;
      },
    );
    this.pending.add(tracked);
    if (this.pending.size >= IN_FLIGHT) await Promise.race(this.pending);
    if (this.failure !== null) throw this.failure;
  }

  async flush(): Promise<void> {
    await Promise.all(this.pending);
    if (this.failure !== null) throw this.failure;
  }
}

/** How often an index build is polled. */
const POLL_MS = 50;

/** One read or write through /v2/query; the answer's `r`. */
async function query(client: Client, type: 'read' | 'write', root: object, what: string): Promise<Record<string, unknown>> {
  const reply = await client.post(
    JSON.stringify({ request_type: type, query: { [type]: { entries: [{ query: { name: 'r', root } }], returns: ['r'] } } }),
  );
  if (reply.status !== 200) throw refused(reply, what);
  return (JSON.parse(reply.body) as { r: Record<string, unknown> }).r;
}

/**
 * The import's indexes, created after its data (so the server builds each once, over all
 * of it, in the background) and waited for; one that cannot be built fails the import.
 */
async function buildIndexes(client: Client, specs: readonly IndexSpec[]): Promise<void> {
  for (const spec of specs) {
    const { kind, ...fields } = spec;
    const what = `the index ${kind} on ${spec.label}.${spec.property}`;
    const receipt = await query(client, 'write', { create_index: { spec: { [kind]: fields }, if_not_exists: true } }, what);
    const operation = receipt.operation_id;
    if (typeof operation !== 'string') continue; // already active
    for (;;) {
      const status = await query(client, 'read', { get_index_operation: { operation_id: operation } }, what);
      if (status.status === 'succeeded') break;
      if (status.status === 'blocked' || status.status === 'aborted') {
        throw new OnlineImportError(
          `${what} cannot be built: ${typeof status.message === 'string' ? status.message : String(status.status)}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
}

export async function importOnline(plan: ImportPlan, progress: Progress, interrupted: () => boolean): Promise<Summary> {
  const client = new Client(plan.url!, plan.key);
  try {
    const sink = new OnlineSink(client, plan.key !== undefined, plan.batchRows);
    let summary: Summary;
    try {
      summary = await runImport(plan, sink, progress, interrupted);
    } finally {
      await sink.flush().catch(() => undefined);
    }
    if (plan.indexes.length > 0) {
      progress.phase(`${plan.indexes.length} index${plan.indexes.length === 1 ? '' : 'es'}`, 0);
      await buildIndexes(client, plan.indexes);
      progress.done();
    }
    return summary;
  } finally {
    client.close();
  }
}
