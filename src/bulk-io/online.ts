/**
 * The online import: the same reading and key lookup as offline (load.ts), each batch
 * sent to a running server (or a gateway, with --key) as `POST /v2/import` requests: one
 * label's rows as columns in msgpack (src/wire/import-request.ts), numbers as typed arrays,
 * every value kind as the store keeps it. The server makes them the plan of a `for_each`
 * bulk load, one transaction per request, whose answer names the first id (the ids of one
 * request follow one by one). Every request is all or nothing; an import that stops keeps
 * the requests acknowledged before it, whole.
 *
 * Rows of one request have the same properties (a for_each body assigns every property
 * it names), so a batch is split by which properties its rows have.
 */
import { Agent, request as httpRequest } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { Value } from '../core/value.js';
import type { IndexSpec } from '../core/index-spec.js';
import type { BulkColumn } from '../store/index.js';
import { encodeImportBatch, type ImportAnswer, type ImportColumn } from '../wire/import-request.js';
import { HeldEdges } from './held-edges.js';
import { runImport, type Sink, type Summary } from './load.js';
import type { ImportPlan } from './plan.js';
import type { Progress } from './progress.js';

/** The gateway refuses bodies over 2 MiB, the server over 16 MiB (its default). */
const GATEWAY_BODY = 1_900_000;
const SERVER_BODY = 15_000_000;
/** Rows of one /v2/import request at most (the server's for_each limit, plus the first row). */
const MAX_ROWS = 1_000_000;
/** Requests in flight at once: the server reads one while its writer applies the other. */
const IN_FLIGHT = 2;

export class OnlineImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OnlineImportError';
  }
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
    this.url = new URL(base);
    this.agent = this.url.protocol === 'https:' ? new HttpsAgent({ keepAlive: true }) : new Agent({ keepAlive: true });
    this.headers = key === undefined ? {} : { authorization: `Bearer ${key}` };
  }

  /** A /v2/query request's JSON text, or a /v2/import body. */
  post(body: string | Uint8Array, path: '/v2/query' | '/v2/import' = '/v2/query'): Promise<Reply> {
    const send = this.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const type = path === '/v2/query' ? 'application/json' : 'application/msgpack';
    return new Promise((resolve, reject) => {
      const req = send(
        new URL(path, this.url),
        {
          method: 'POST',
          agent: this.agent,
          headers: { ...this.headers, 'content-type': type, 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          res.on('error', reject);
        },
      );
      req.on('error', (err) => reject(new OnlineImportError(`cannot reach ${this.url.origin}: ${err.message}`)));
      req.end(body);
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

/** Rows [at, at + take) of `values`, or of its rows listed in `rows`. */
function pick(values: Float64Array, rows: number[] | null, at: number, take: number): Float64Array {
  if (rows === null) return values.subarray(at, at + take);
  const out = new Float64Array(take);
  for (let k = 0; k < take; k++) out[k] = values[rows[at + k]!]!;
  return out;
}

/** A column's rows [at, at + take) (of `rows` when listed), every one of them present. */
function importColumn(column: BulkColumn, rows: number[] | null, at: number, take: number): ImportColumn {
  const { name } = column;
  if (column.kind !== 'value') return { name, kind: column.kind === 'i64' ? 'int' : 'float', values: pick(column.values, rows, at, take) };
  const values: Value[] = new Array<Value>(take);
  for (let k = 0; k < take; k++) values[k] = column.values[rows === null ? at + k : rows[at + k]!]!;
  return { name, kind: 'any', values };
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

  async addNodes(label: string, count: number, columns: BulkColumn[]): Promise<{ readonly ids: Promise<ArrayLike<number>> }> {
    const out = new Float64Array(count);
    const jobs = await this.send(label, count, columns, null, null, (rows, at, n, first) => {
      for (let k = 0; k < n; k++) out[rows === null ? at + k : rows[at + k]!] = first + k;
    });
    const ids = Promise.all(jobs).then(() => out);
    // A failure is thrown by the next call or by flush, whether or not the ids are awaited.
    ids.catch(() => undefined);
    return { ids };
  }

  /** Edge batches not sent yet: joined while they fit one request (held-edges.ts). */
  private readonly held = new HeldEdges();

  /** Edge rows sent so far. */
  private edgesSent = 0;

  async addEdges(label: string, from: Float64Array, to: Float64Array, count: number, columns: BulkColumn[]): Promise<void> {
    const batch = { label, from, to, count, columns };
    // A request holds at most as many rows as were sent before it (so the first goes at once
    // and the server starts while the next are read), up to --batch-rows.
    const limit = Math.min(this.batchRows, Math.max(1, this.edgesSent));
    if (!this.held.accepts(batch) || this.held.count + count > limit) await this.sendHeld();
    this.held.add(batch);
    if (this.held.count >= limit) await this.sendHeld();
  }

  private async sendHeld(): Promise<void> {
    const batch = this.held.take();
    if (batch === null) return;
    this.edgesSent += batch.count;
    await this.send(batch.label, batch.count, batch.columns, batch.from, batch.to, () => {});
  }

  /** Sends the rows as requests (tracked in flight); resolves with them once the last is sent. */
  private async send(
    label: string,
    count: number,
    columns: readonly BulkColumn[],
    from: Float64Array | null,
    to: Float64Array | null,
    created: (rows: number[] | null, at: number, n: number, first: number) => void,
  ): Promise<Promise<void>[]> {
    const jobs: Promise<void>[] = [];
    const element = from === null ? 'node' : 'edge';
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
    for (const [shape, rows] of shapes) {
      const used = columns.filter((_, c) => shape[c] === '1');
      const n = rows?.length ?? count;
      // Rows [at, at + take) of this shape as one request's body.
      const body = (at: number, take: number): Uint8Array =>
        encodeImportBatch({
          label,
          element,
          count: take,
          ...(from === null ? {} : { from: pick(from, rows, at, take), to: pick(to!, rows, at, take) }),
          columns: used.map((c) => importColumn(c, rows, at, take)),
        });
      let per = Math.min(n, this.batchRows, MAX_ROWS);
      for (let at = 0; at < n;) {
        let take = Math.min(per, n - at);
        let bytes = body(at, take);
        // Over the body limit: fewer rows, in proportion, until it fits.
        while (bytes.byteLength > this.maxBody && take > 1) {
          take = Math.max(1, Math.floor((take * this.maxBody) / bytes.byteLength / 1.1));
          bytes = body(at, take);
        }
        per = take;
        const what = `a batch of ${take} ${element === 'node' ? 'nodes' : 'edges'} of ${label}`;
        const first = at;
        const job = this.client.post(bytes, '/v2/import').then((reply) => {
          if (reply.status !== 200) throw refused(reply, what);
          let answer: ImportAnswer;
          try {
            answer = JSON.parse(reply.body) as ImportAnswer;
          } catch {
            throw new OnlineImportError(`the server's answer to ${what} is not JSON: ${reply.body.slice(0, 200)}`);
          }
          if (typeof answer.first_id !== 'number' || answer.count !== take)
            throw new OnlineImportError(`the server's answer to ${what} names no first id for ${take} rows: ${reply.body.slice(0, 200)}`);
          created(rows, first, take, answer.first_id);
        });
        jobs.push(job);
        await this.track(job);
        at += take;
      }
    }
    return jobs;
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
    await this.sendHeld();
    await this.settle();
  }

  /** Waits for the requests in flight (sends nothing held); throws their first failure. */
  async settle(): Promise<void> {
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
      summary = await runImport(plan, () => Promise.resolve(sink), progress, interrupted);
    } finally {
      // After a failure or Ctrl+C nothing more is sent; what is in flight is awaited.
      await sink.settle().catch(() => undefined);
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
