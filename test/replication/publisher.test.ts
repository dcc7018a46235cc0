/**
 * The publisher's grouping (src/replication/publisher.ts, entry-groups.ts) against a real
 * nats-server: what one flush made durable goes as few messages, every LSN once; and a
 * publish whose acknowledgement was lost, retried as another group, is recognised as this
 * writer's own history (the stream moved on with the same hashes), not as a second writer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore, type Store } from '../../src/store/index.js';
import { Publisher } from '../../src/replication/publisher.js';
import { firstLsn } from '../../src/replication/entry-groups.js';
import { LogStream, WrongLastMessage } from '../../src/replication/nats.js';
import { natsSuite } from '../helpers/nats.js';

const suite = natsSuite('trellis-publisher-');

async function write(store: Store, n: number): Promise<void> {
  await Promise.all(Array.from({ length: n }, (_, i) => store.writeLogged((w) => w.createNode('A', { i }))));
}

async function until(what: string, check: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The stream's messages as [first LSN, last LSN] each. */
async function messages(url: string, name: string): Promise<[number, number][]> {
  const log = await LogStream.connect(url, name);
  try {
    const state = await log.state();
    const out: [number, number][] = [];
    for (let seq = state.firstSeq; seq <= state.lastSeq; seq++) {
      const m = (await log.at(seq))!;
      out.push([firstLsn(m), m.lsn]);
    }
    return out;
  } finally {
    await log.close();
  }
}

function publisher(store: Store, stream: string, fenced: string[], logged: string[]): Promise<Publisher> {
  return Publisher.start({
    url: suite.nats.url,
    stream,
    store,
    log: (message) => logged.push(message),
    onFenced: (reason) => fenced.push(reason),
  });
}

test(
  'entries go as groups, every LSN once; a retry regrouped after a lost acknowledgement is not a second writer',
  { skip: suite.skip },
  async () => {
    const store = await openStore({ path: suite.folder(), keepLog: true });
    const fenced: string[] = [];
    const logged: string[] = [];
    const stream = `pub${Date.now()}`;
    // `late` connects while the stream is empty and then publishes nothing: to it, whatever
    // `first` publishes is what its own lost acknowledgements would have left in the stream.
    const late = await publisher(store, stream, fenced, logged);
    const first = await publisher(store, stream, fenced, logged);
    try {
      await write(store, 41);
      first.notify();
      await until('entry 41 is published', () => first.publishedLsn === 41);
      await first.close(); // one round: it trimmed nothing of the log `late` reads
      const published = await messages(suite.nats.url, stream);
      assert.deepEqual(published, [
        [1, 1], // the stream's first entry goes alone (no expected-last check covers it)
        [2, 41],
      ]);
      await write(store, 7); // 42..48: `late` now sees 1..48 and groups 2..48, which the stream does not end with
      late.notify();
      await until("`late` went past the stream's end", () => late.publishedLsn === 48);
      assert.deepEqual(fenced, [], 'the same history moved on is not a second writer');
      const lsns = (await messages(suite.nats.url, stream)).flatMap(([from, to]) =>
        Array.from({ length: to - from + 1 }, (_, i) => from + i),
      );
      assert.deepEqual(
        lsns,
        Array.from({ length: 48 }, (_, i) => i + 1),
        'every LSN once, in order',
      );
    } finally {
      await late.close();
      await first.close();
      await store.close();
    }
  },
);

test(
  "a publish's acknowledgement: the stream's sequence, a duplicate id as such, a wrong expectation as WrongLastMessage, no stream as an error, never a hang",
  { skip: suite.skip },
  async () => {
    const stream = `ack${Date.now()}`;
    const log = await LogStream.connect(suite.nats.url, stream);
    try {
      await log.ensure();
      const meta = (lsn: number) => ({ lsn, count: 1, part: 0, parts: 1, hash: 'ab'.repeat(32) });
      const data = Buffer.from('entry');
      assert.deepEqual(await log.publish(data, meta(1), '1', null), { seq: 1, duplicate: false });
      assert.deepEqual(await log.publish(data, meta(2), '2', '1'), { seq: 2, duplicate: false });
      assert.deepEqual(await log.publish(data, meta(2), '2', '1'), { seq: 2, duplicate: true });
      await assert.rejects(log.publish(data, meta(3), '3', '1'), WrongLastMessage);
      // Several in flight at once are each answered with their own acknowledgement.
      const acks = await Promise.all([3, 4, 5].map((lsn) => log.publish(data, meta(lsn), String(lsn), null)));
      assert.deepEqual(
        acks.map((a) => a.seq),
        [3, 4, 5],
      );
      await log.remove();
      await assert.rejects(log.publish(data, meta(6), '6', '5'), /JetStream did not take the message|no responders|503/i);
    } finally {
      await log.close();
    }
  },
);
