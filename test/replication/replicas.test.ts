/**
 * Replication end to end, with real parts (docs/replication.md): a real nats-server with
 * JetStream, the real server as a writer publishing its change log, and two replicas in
 * data folders of their own that take a snapshot and follow the stream. At the end every
 * replica's folder holds exactly the writer's data, key for key, and answers every search
 * as the writer does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, failedStart, type TestServer } from '../helpers/server.js';
import { natsSuite } from '../helpers/nats.js';
import { openStore } from '../../src/store/index.js';
import { folderDigest, indexRequests, mixedWrites, namedSegments, searchRequests, writerLsn } from '../helpers/replication.js';

const suite = natsSuite('trellis-repl-');
const { skip, folder } = suite;

async function post(
  url: string,
  body: object,
  headers: Record<string, string> = {},
): Promise<{ status: number; lsn: string | null; text: string }> {
  const res = await fetch(`${url}/v2/query`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  });
  return { status: res.status, lsn: res.headers.get('x-trellis-lsn'), text: await res.text() };
}

async function readyLsn(url: string): Promise<number> {
  const res = await fetch(`${url}/readyz`);
  await res.text();
  return Number(res.headers.get('x-trellis-lsn') ?? -1);
}

/** Waits (generously: the machine is shared) until the replica has applied `lsn`. */
async function caughtUp(replica: TestServer, lsn: number, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  let seen = -1;
  while (Date.now() < deadline) {
    seen = await readyLsn(replica.url);
    if (seen >= lsn) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the replica reached LSN ${seen}, not ${lsn}:\n${replica.output().slice(-3000)}`);
}

/** Waits until a replica's folder holds every segment file the writer's pointers name, byte for byte. */
async function haveSegments(dir: string, want: Map<string, string | null>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  let have = new Map<string, string | null>();
  while (Date.now() < deadline) {
    have = new Map([...want.keys()].map((name) => [name, namedSegments(dir).get(name) ?? null]));
    if ([...want].every(([name, sha]) => have.get(name) === sha)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(have, want, `the replica in ${dir} fetched the writer's vector segments`);
}

function replicaArgs(data: string, writer: TestServer, stream: string): string[] {
  return ['--mode', 'replica', '--data', data, '--nats', suite.nats.url, '--writer-url', writer.url, '--stream', stream];
}

test('a writer and two replicas: mixed writes, and every replica ends with the writer data and answers', { skip }, async () => {
  const stream = 'mixed';
  const writerDir = folder();
  const writer = await startTestServer(['--data', writerDir, '--nats', suite.nats.url, '--stream', stream]);
  const replicaDirs = [folder(), folder()];
  let replicas: TestServer[] = [];
  try {
    for (const body of indexRequests()) assert.equal((await post(writer.url, body)).status, 200);
    const writes = mixedWrites(5, 400);
    // One replica joins before the writes, the other in the middle of them (snapshot under writes).
    replicas.push(await startTestServer(replicaArgs(replicaDirs[0]!, writer, stream)));
    let last = 0;
    for (let i = 0; i < writes.length; i++) {
      if (i === 200) replicas.push(await startTestServer(replicaArgs(replicaDirs[1]!, writer, stream)));
      const answer = await post(writer.url, writes[i]!);
      if (answer.status === 200) {
        const lsn = Number(answer.lsn);
        assert.ok(lsn >= last, `write answers carry non-decreasing LSNs (${lsn} after ${last})`);
        last = lsn;
      }
    }
    // Background index steps are entries too: wait until the writer's LSN stops moving.
    let settled = -1;
    for (let i = 0; i < 600; i++) {
      const lsn = await writerLsn(writer.url);
      assert.ok(lsn > 0, 'the writer answers its LSN');
      if (lsn === settled) break;
      settled = lsn;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const replica of replicas) await caughtUp(replica, settled);
    // The writer's metrics: its position (background steps included) and what it published.
    const writerMetric = async (name: string) =>
      Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(await (await fetch(`${writer.url}/metrics`)).text())?.[1] ?? -1);
    for (let i = 0; i < 100 && (await writerMetric('trellis_replication_published_lsn')) < settled; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(await writerMetric('trellis_replication_published_lsn'), settled, 'the writer reports what it published');
    assert.equal(await writerMetric('trellis_replication_lsn'), settled, "the writer's LSN metric counts background steps");
    // The writer's builder made native vector segments; each replica fetches the files its
    // replicated pointers name from the writer (searches are exact until then).
    const segments = namedSegments(writerDir);
    assert.ok(segments.size > 0, 'the writer built a vector segment');
    for (const dir of replicaDirs) await haveSegments(dir, segments);
    for (const body of searchRequests()) {
      const want = await post(writer.url, body);
      assert.equal(want.status, 200, want.text);
      for (const replica of replicas) {
        const got = await post(replica.url, body);
        assert.equal(got.text, want.text, `a replica answers ${JSON.stringify(body).slice(0, 80)} as the writer`);
        assert.ok(Number(got.lsn) >= settled, 'every replica answer carries the LSN it reflects');
      }
    }
    // Writes are the writer's.
    const refused = await post(replicas[0]!.url, writes[0]!);
    assert.equal(refused.status, 503);
    assert.equal(JSON.parse(refused.text).error, 'writer_mode_required');
    // Both started on empty folders: each took its first snapshot as its data file.
    for (const replica of replicas) assert.match(replica.output(), /a first snapshot of \d+ bytes at LSN \d+ is this replica's data file/);
    const health = await fetch(`${replicas[0]!.url}/readyz`);
    assert.deepEqual(await health.json(), { ready: true, mode: 'replica', index_runtime: 'ready' });
    await writer.stop();
    for (const r of replicas) await r.stop();
    replicas = [];
    const want = folderDigest(writerDir);
    for (const dir of replicaDirs) assert.deepEqual(folderDigest(dir), want);
    for (const dir of replicaDirs) {
      const copy = await openStore({ path: dir, readOnly: true });
      assert.equal(copy.firstLogged(), null, "a replica keeps none of the writer's log rows its first snapshot carried");
      await copy.close();
    }
    const files = namedSegments(writerDir);
    for (const dir of replicaDirs) assert.deepEqual(namedSegments(dir), files);
  } finally {
    await writer.stop();
    for (const r of replicas) await r.stop();
  }
});

test('read-your-writes: a read with X-Trellis-Min-Lsn on a replica sees the write, every time', { skip }, async () => {
  const stream = 'ryw';
  const writer = await startTestServer(['--data', folder(), '--nats', suite.nats.url, '--stream', stream]);
  const replica = await startTestServer(replicaArgs(folder(), writer, stream));
  try {
    for (let i = 0; i < 100; i++) {
      const name = `n${i}`;
      const w = await post(writer.url, {
        request_type: 'write',
        query: {
          write: {
            entries: [{ query: { root: { add_n: { label: 'R', properties: [['name', { value: { string: name } }]] } } } }],
            returns: [],
          },
        },
      });
      assert.equal(w.status, 200, w.text);
      const r = await post(
        replica.url,
        {
          request_type: 'read',
          query: {
            read: {
              entries: [
                {
                  query: {
                    name: 'c',
                    root: {
                      count: {
                        input: {
                          nodes_where: { predicate: { eq: { left: { property: 'name' }, right: { constant: { string: name } } } } },
                        },
                      },
                    },
                  },
                },
              ],
              returns: ['c'],
            },
          },
        },
        { 'x-trellis-min-lsn': w.lsn! },
      );
      assert.equal(r.status, 200, r.text);
      assert.equal(r.text, '{"c":[1]}', `round ${i}: the replica saw the write it was asked for`);
      assert.ok(Number(r.lsn) >= Number(w.lsn));
    }
    // An LSN that will not come within the bound: 503 with a retryable code.
    const far = await post(
      replica.url,
      { request_type: 'read', query: { read: { entries: [], returns: [] } } },
      { 'x-trellis-min-lsn': '999999' },
    );
    assert.equal(far.status, 503);
    assert.equal(JSON.parse(far.text).error, 'lsn_not_reached');
    const bad = await post(
      replica.url,
      { request_type: 'read', query: { read: { entries: [], returns: [] } } },
      { 'x-trellis-min-lsn': 'x' },
    );
    assert.equal(bad.status, 400);
  } finally {
    await replica.stop();
    await writer.stop();
  }
});

test("a replica answer's X-Trellis-Lsn is the LSN of the snapshot it read: under writes, every count matches it", { skip }, async () => {
  const stream = 'snapshot-lsn';
  const writer = await startTestServer(['--data', folder(), '--nats', suite.nats.url, '--stream', stream]);
  const replica = await startTestServer(replicaArgs(folder(), writer, stream));
  const addOne = {
    request_type: 'write',
    query: { write: { entries: [{ query: { root: { add_n: { label: 'S', properties: [] } } } }], returns: [] } },
  };
  const countS = {
    request_type: 'read',
    query: {
      read: {
        entries: [{ query: { name: 'c', root: { count: { input: { nodes: { reference: 'all' } } } } } }],
        returns: ['c'],
      },
    },
  };
  try {
    // Each write adds one node and one LSN: at LSN x the replica holds x - base nodes.
    const first = await post(writer.url, addOne);
    assert.equal(first.status, 200, first.text);
    const base = Number(first.lsn) - 1;
    let writing = true;
    const writes = (async () => {
      for (let i = 0; i < 300; i++) assert.equal((await post(writer.url, addOne)).status, 200);
      writing = false;
    })();
    const seen: [number, number][] = [];
    const reads = Array.from({ length: 4 }, async () => {
      while (writing) {
        const r = await post(replica.url, countS);
        assert.equal(r.status, 200, r.text);
        seen.push([Number(r.lsn), (JSON.parse(r.text) as { c: number[] }).c[0]!]);
      }
    });
    await Promise.all([writes, ...reads]);
    assert.ok(seen.length > 20, `${seen.length} reads while the writes went on`);
    for (const [lsn, count] of seen) assert.equal(count, lsn - base, `an answer with X-Trellis-Lsn ${lsn} counted ${count} nodes`);
    assert.ok(new Set(seen.map(([lsn]) => lsn)).size > 3, 'the answers read several snapshots');
  } finally {
    await replica.stop();
    await writer.stop();
  }
});

test('a second writer on the same stream is refused at start, naming both histories', { skip }, async () => {
  const stream = 'fenced';
  const first = await startTestServer(['--data', folder(), '--nats', suite.nats.url, '--stream', stream]);
  try {
    for (let i = 0; i < 3; i++) {
      await post(first.url, {
        request_type: 'write',
        query: { write: { entries: [{ query: { root: { add_n: { label: 'A', properties: [] } } } }], returns: [] } },
      });
    }
    // Wait until the stream holds the three entries (published after their flush).
    const replica = await startTestServer(replicaArgs(folder(), first, stream));
    await caughtUp(replica, 3);
    await replica.stop();
    const other = folder();
    const seed = await startTestServer(['--data', other]);
    await post(seed.url, {
      request_type: 'write',
      query: { write: { entries: [{ query: { root: { add_n: { label: 'B', properties: [] } } } }], returns: [] } },
    });
    await seed.stop();
    const second = await failedStart(['--data', other, '--nats', suite.nats.url, '--stream', stream]);
    assert.equal(second.code, 1, second.stdout + second.stderr);
    assert.match(second.stderr, /holds entries up to LSN 3 but this writer's history ends at LSN 1/);
  } finally {
    await first.stop();
  }
});
