/**
 * The replication log's stream in NATS JetStream: the only importer of `@nats-io/*`
 * (docs/replication.md). A message holds one entry, a group of consecutive entries
 * (`Trellis-Entries: n`), or a part of an entry larger than the server's message limit
 * (`Trellis-Part: i/k`); entry-groups.ts has the payloads. The message that ends with entry
 * N has the message id `N` (the other parts of a split entry `N.i`), so "the stream's last
 * message id" after entry N is always `N` and the publisher's expected-last-message-id
 * check refuses a second writer.
 */
import { connect, createInbox, headers, type Msg, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, PubHeaders, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { firstLsn, type EntryMessage } from './entry-groups.js';

export const LSN_HEADER = 'Trellis-Lsn';
export const PART_HEADER = 'Trellis-Part';
export const HASH_HEADER = 'Trellis-Hash';
export const ENTRIES_HEADER = 'Trellis-Entries';

/** One message of the stream, as the replicas and the publisher's checks read it. */
export interface LogMessage extends EntryMessage {
  /** The stream's own sequence number. */
  readonly seq: number;
  /** Messages after this one in the stream when it was delivered (consumers only; else 0). */
  readonly pending: number;
}

export interface StreamState {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly messages: number;
}

/** What a publish learnt: the stream's sequence, and whether the message id was already there. */
export interface PublishAck {
  readonly seq: number;
  readonly duplicate: boolean;
}

/** The stream holds another message id than the one this writer expected last: a second writer. */
export class WrongLastMessage extends Error {}

/** Bytes the headers of a part may take: a part's payload is the server's limit less this. */
const HEADER_ROOM = 1024;
/** How long a publish waits for JetStream's acknowledgement. */
const PUBLISH_TIMEOUT_MS = 5000;

/** A publish awaiting its acknowledgement. */
interface PendingAck {
  resolve(ack: PublishAck): void;
  reject(err: unknown): void;
  readonly timer: NodeJS.Timeout;
}

export class LogStream {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    readonly stream: string,
  ) {}

  /**
   * Connects (and keeps reconnecting for ever once connected). Rejects when no server
   * answers within `timeoutMs`.
   */
  static async connect(url: string, stream: string, timeoutMs = 2000): Promise<LogStream> {
    // noAsyncTraces: no error object (with its stack) made up front for every request, in
    // case it fails: they were a tenth of the writer thread's time under small batches.
    const nc = await connect({
      servers: url,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      timeout: timeoutMs,
      name: 'trellis',
      noAsyncTraces: true,
    });
    const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
    return new LogStream(nc, jetstream(nc, { timeout: 5000 }), jsm, stream);
  }

  get subject(): string {
    return `${this.stream}.log`;
  }

  /**
   * Publishes awaiting JetStream's acknowledgement, by the last token of their reply
   * subject. Acknowledgements arrive on one subscription of this connection (made at the
   * first publish; the client renews it after a reconnection) rather than through the
   * client's request/reply: that made a request, a deferred, a timer and a "cancelled"
   * error with its stack per message, most of what a message cost the writer thread.
   */
  private readonly pending = new Map<string, PendingAck>();
  private acks: Subscription | null = null;
  private inbox = '';
  private lastAck = 0;

  private acknowledged(err: Error | null, msg: Msg): void {
    if (err !== null) return this.failPending(err);
    const token = msg.subject.slice(this.inbox.length + 1);
    const waiting = this.pending.get(token);
    if (waiting === undefined) return; // timed out meanwhile
    this.pending.delete(token);
    clearTimeout(waiting.timer);
    try {
      waiting.resolve(publishAck(msg));
    } catch (failure) {
      waiting.reject(failure);
    }
  }

  private failPending(err: unknown): void {
    for (const waiting of this.pending.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(err);
    }
    this.pending.clear();
  }

  /** Payload bytes of one message (the server's max_payload less room for the headers). */
  get partBytes(): number {
    return Math.max(1024, (this.nc.info?.max_payload ?? 1024 * 1024) - HEADER_ROOM);
  }

  /** Creates the stream if it does not exist (file storage; limits as the operator set them otherwise). */
  async ensure(): Promise<void> {
    try {
      await this.jsm.streams.info(this.stream);
    } catch (err) {
      if (!/stream not found/i.test(String((err as Error).message))) throw err;
      await this.jsm.streams.add({ name: this.stream, subjects: [this.subject], storage: 'file' as never });
    }
  }

  async state(): Promise<StreamState> {
    const info = await this.jsm.streams.info(this.stream);
    return { firstSeq: info.state.first_seq, lastSeq: info.state.last_seq, messages: info.state.messages };
  }

  /** The message at a stream sequence, or null when there is none (trimmed, or past the end). */
  async at(seq: number): Promise<LogMessage | null> {
    try {
      const m = await this.jsm.streams.getMessage(this.stream, { seq });
      if (m === null) return null;
      return decode(m.seq, m.header, m.data, 0);
    } catch (err) {
      if (/no message found|not found/i.test(String((err as Error).message))) return null;
      throw err;
    }
  }

  /**
   * The stream sequence of the first message holding entry `lsn`+1 (binary search: messages
   * are in LSN order; a group may hold `lsn` too), the stream's end + 1 when it holds nothing
   * after `lsn`, or 'gap' when the stream no longer holds entry `lsn`+1 whole (trimmed past it).
   */
  async seqAfter(lsn: number): Promise<number | 'gap'> {
    const state = await this.state();
    if (state.messages === 0 || state.lastSeq === 0) return state.lastSeq + 1;
    const first = await this.at(state.firstSeq);
    if (first !== null && (firstLsn(first) > lsn + 1 || (first.lsn === lsn + 1 && first.part > 0))) return 'gap';
    let lo = state.firstSeq;
    let hi = state.lastSeq + 1;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const m = await this.at(mid);
      if (m === null || m.lsn <= lsn) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Publishes one message: a part, an entry or a group of `count` entries ending at `lsn`.
   * `expectLast`: the message id the stream must end with, or null when the stream is new
   * to this writer's history. A duplicate (the id is already in the stream's window) is
   * acknowledged as such, without the check.
   */
  publish(
    data: Uint8Array,
    meta: { lsn: number; count: number; part: number; parts: number; hash: string },
    msgID: string,
    expectLast: string | null,
  ): Promise<PublishAck> {
    const h = headers();
    h.set(LSN_HEADER, String(meta.lsn));
    h.set(PART_HEADER, `${meta.part}/${meta.parts}`);
    h.set(HASH_HEADER, meta.hash);
    if (meta.count > 1) h.set(ENTRIES_HEADER, String(meta.count));
    // What js.publish sets for its msgID and expect.lastMsgID options.
    h.set(PubHeaders.MsgIdHdr, msgID);
    if (expectLast !== null) h.set(PubHeaders.ExpectedLastMsgIdHdr, expectLast);
    if (this.acks === null) {
      this.inbox = createInbox();
      this.acks = this.nc.subscribe(`${this.inbox}.*`, { callback: (err, msg) => this.acknowledged(err, msg) });
    }
    const token = String(++this.lastAck);
    return new Promise<PublishAck>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new Error(`JetStream did not acknowledge the message ${msgID} within ${PUBLISH_TIMEOUT_MS} ms`));
      }, PUBLISH_TIMEOUT_MS);
      this.pending.set(token, { resolve, reject, timer });
      try {
        this.nc.publish(this.subject, data, { headers: h, reply: `${this.inbox}.${token}` });
      } catch (err) {
        clearTimeout(timer);
        this.pending.delete(token);
        reject(err);
      }
    });
  }

  /**
   * Delivers the stream's messages from `startSeq` on, in order, to `onMessage` (an ordered
   * consumer: no state on the server, recreated by the client after a reconnect). Resolves
   * when `stop` is called or `onMessage` throws (the error is returned).
   */
  follow(startSeq: number, onMessage: (m: LogMessage) => Promise<void> | void): { stop(): void; done: Promise<unknown> } {
    let stopped = false;
    let iterator: { stop(): void } | null = null;
    const done = (async () => {
      const consumer = await this.js.consumers.get(this.stream, { opt_start_seq: startSeq });
      const messages = await consumer.consume();
      iterator = messages;
      if (stopped) messages.stop();
      for await (const msg of messages) {
        if (stopped) break;
        await onMessage(decode(msg.seq, msg.headers, msg.data, msg.info.pending));
      }
      return undefined;
    })().catch((err: unknown) => err);
    return {
      stop() {
        stopped = true;
        (iterator as { stop(): void } | null)?.stop();
      },
      done,
    };
  }

  /** Deletes the stream (tests; and an operator starting over). */
  async remove(): Promise<void> {
    await this.jsm.streams.delete(this.stream);
  }

  /** Trims the stream to the messages after `seq` (tests of a replica that fell behind the stream). */
  async purgeBefore(seq: number): Promise<void> {
    await this.jsm.streams.purge(this.stream, { seq });
  }

  get closed(): boolean {
    return this.nc.isClosed();
  }

  async close(): Promise<void> {
    this.failPending(new Error('the connection to NATS was closed'));
    if (!this.nc.isClosed()) await this.nc.close();
  }
}

/**
 * What an acknowledgement of a publish says: JetStream's answer (`{"stream","seq","duplicate"}`
 * or `{"error"}`), or a status from the server (503: nothing takes the subject). Throws
 * WrongLastMessage when the stream ends with another message id than the one expected.
 */
function publishAck(msg: Msg): PublishAck {
  if (msg.headers?.hasError === true) {
    throw new Error(`JetStream did not take the message: ${msg.headers.code} ${msg.headers.description}`);
  }
  const ack = msg.json<{ stream?: string; seq?: number; duplicate?: boolean; error?: { description?: string } }>();
  if (ack.error !== undefined) {
    const text = ack.error.description ?? JSON.stringify(ack.error);
    if (/wrong last msg ID/i.test(text)) throw new WrongLastMessage(text);
    throw new Error(text);
  }
  if (typeof ack.seq !== 'number' || !ack.stream) throw new Error(`not a JetStream acknowledgement: ${msg.string()}`);
  return { seq: ack.seq, duplicate: ack.duplicate === true };
}

interface HeaderReader {
  get(name: string): string;
}

function decode(seq: number, h: HeaderReader | undefined, data: Uint8Array, pending: number): LogMessage {
  const lsn = Number(h?.get(LSN_HEADER) ?? NaN);
  const [part, parts] = (h?.get(PART_HEADER) ?? '0/1').split('/').map(Number) as [number, number];
  const hash = h?.get(HASH_HEADER) ?? '';
  const count = Number(h?.get(ENTRIES_HEADER) || 1);
  const countFits = Number.isSafeInteger(count) && count >= 1 && count <= lsn && (count === 1 || parts === 1);
  if (!Number.isSafeInteger(lsn) || lsn < 1 || !(parts >= 1) || !(part >= 0 && part < parts) || !countFits) {
    throw new Error(`stream message ${seq} is not a Trellis log entry (headers ${LSN_HEADER}, ${PART_HEADER} and ${ENTRIES_HEADER})`);
  }
  return { seq, lsn, count, part, parts, hash, data, pending };
}
