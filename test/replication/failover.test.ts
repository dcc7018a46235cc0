/**
 * Failover by hand (docs/replication.md, "Failover"), with real processes: a replica that
 * caught up is stopped, promoted (`trellis promote`: its epoch rises) and started as the
 * writer on the same stream; the old writer, still running, is refused by the stream at
 * its next publish and answers every later write with 503 writer_fenced, saying why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { natsSuite } from '../helpers/nats.js';
import { promoteMain } from '../../src/replication/cli.js';
import { LogStream } from '../../src/replication/nats.js';

const suite = natsSuite('trellis-failover-');
const { skip, folder } = suite;

const add = (label: string) =>
  JSON.stringify({
    request_type: 'write',
    query: { write: { entries: [{ query: { root: { add_n: { label, properties: [] } } } }], returns: [] } },
  });

async function write(server: TestServer, label: string): Promise<{ status: number; lsn: number; text: string }> {
  const res = await fetch(`${server.url}/v2/query`, { method: 'POST', body: add(label) });
  return { status: res.status, lsn: Number(res.headers.get('x-trellis-lsn')), text: await res.text() };
}

test('a promoted replica takes over the stream with a higher epoch, and the old writer is fenced', { skip }, async () => {
  const stream = 'failover';
  const replicaDir = folder();
  const old = await startTestServer(['--data', folder(), '--nats', suite.nats.url, '--stream', stream]);
  let replica: TestServer | undefined = await startTestServer([
    '--mode',
    'replica',
    '--data',
    replicaDir,
    '--nats',
    suite.nats.url,
    '--stream',
    stream,
    '--writer-url',
    old.url,
  ]);
  let promoted: TestServer | undefined;
  const lines: string[] = [];
  const log = console.log;
  try {
    let last = 0;
    for (let i = 0; i < 10; i++) last = (await write(old, 'Old')).lsn;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const res = await fetch(`${replica.url}/readyz`);
      await res.text();
      if (Number(res.headers.get('x-trellis-lsn')) >= last) break;
      assert.ok(Date.now() < deadline, 'the replica caught up');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await replica.stop();
    replica = undefined;
    console.log = (line: string) => void lines.push(line);
    assert.equal(await promoteMain(['--data', replicaDir]), 0);
    console.log = log;
    assert.match(lines[0]!, new RegExp(`^trellis promote: ${replicaDir} is at LSN ${last} with epoch 2;`));
    promoted = await startTestServer(['--data', replicaDir, '--nats', suite.nats.url, '--stream', stream]);
    const first = await write(promoted, 'New');
    assert.equal(first.status, 200, first.text);
    assert.equal(first.lsn, last + 1, 'the new writer continues the history');
    // Whichever writer publishes LSN last + 1 first wins the stream (docs/replication.md,
    // "Failover"): wait until the new writer's entry is there before the old one writes.
    const logStream = await LogStream.connect(suite.nats.url, stream);
    try {
      const until = Date.now() + 60_000;
      while ((await logStream.at((await logStream.state()).lastSeq))!.lsn < last + 1) {
        assert.ok(Date.now() < until, 'the new writer published its first entry');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await logStream.close();
    }
    // The old writer's next entry is refused by the stream: it is fenced.
    let fenced: { status: number; text: string } | undefined;
    for (let i = 0; i < 200 && fenced === undefined; i++) {
      const w = await write(old, 'Zombie');
      if (w.status === 503) fenced = w;
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(fenced !== undefined, 'the old writer stopped taking writes');
    assert.equal(JSON.parse(fenced.text).error, 'writer_fenced');
    assert.match(old.output(), /this writer is fenced and takes no more writes/);
    // The new writer goes on.
    assert.equal((await write(promoted, 'New')).status, 200);
  } finally {
    console.log = log;
    await replica?.stop();
    await promoted?.stop();
    await old.stop();
  }
});
