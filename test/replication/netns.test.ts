/**
 * A replica on a host of its own, as issue 28 asks where the machine allows it: the
 * replica runs in a network namespace joined to the writer's by a veth link (its own
 * interface and address, no loopback shared with the writer), reaching NATS and the
 * writer at the link's address on the other side. The link is cut under writes: the writer goes
 * on answering every write, and once the link is back the replica catches up and ends
 * with the writer's data, key for key. Needs root and `ip netns` (skipped otherwise).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startCli, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { natsSkip, startNats, type TestNats } from '../helpers/nats.js';
import { folderDigest, writerLsn } from '../helpers/replication.js';
import { q } from '../helpers/embedded.js';

const NS = `trellis-${process.pid}`;
const HOST_IF = `tvh${process.pid % 100000}`;
const NS_IF = `tvr${process.pid % 100000}`;
const NET = `10.231.${process.pid % 250}`;
const WRITER_IP = `${NET}.1`;
const REPLICA_IP = `${NET}.2`;

function ip(...args: string[]): { ok: boolean; why: string } {
  const run = spawnSync('ip', args, { encoding: 'utf8' });
  return { ok: run.status === 0, why: `ip ${args.join(' ')}: ${run.error?.message ?? run.stderr.trim()}` };
}

/** Whether this machine lets the test make a namespace (root, `ip netns`); a reason to skip otherwise. */
function netnsSkip(): false | string {
  const nats = natsSkip();
  if (nats !== false) return nats;
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  const made = ip('netns', 'add', NS);
  if (!made.ok) return `network namespaces are not available here (${made.why})`;
  return false;
}

const skip = netnsSkip();
let nats: TestNats | undefined;
const dirs: { remove(): void }[] = [];

function must(...args: string[]): void {
  const run = ip(...args);
  if (!run.ok) throw new Error(run.why);
}

before(async () => {
  if (skip !== false) return;
  // The link: one end here, the other in the replica's namespace.
  must('link', 'add', HOST_IF, 'type', 'veth', 'peer', 'name', NS_IF);
  must('link', 'set', NS_IF, 'netns', NS);
  must('addr', 'add', `${WRITER_IP}/30`, 'dev', HOST_IF);
  must('link', 'set', HOST_IF, 'up');
  must('netns', 'exec', NS, 'ip', 'addr', 'add', `${REPLICA_IP}/30`, 'dev', NS_IF);
  must('netns', 'exec', NS, 'ip', 'link', 'set', NS_IF, 'up');
  must('netns', 'exec', NS, 'ip', 'link', 'set', 'lo', 'up');
  // On every address: the writer reaches it on loopback, the replica over the link.
  nats = await startNats('0.0.0.0');
});
after(async () => {
  await nats?.stop();
  if (skip === false) {
    ip('link', 'del', HOST_IF); // its peer goes with it
    ip('netns', 'del', NS);
  }
  for (const d of dirs) d.remove();
});

function folder(): string {
  const dir = tempDir('trellis-netns-');
  dirs.push(dir);
  return dir.path;
}

const add = (i: number) => ({
  request_type: 'write',
  query: { write: { entries: [q(null, { add_n: { label: 'H', properties: [['i', { value: { i64: i } }]] } })], returns: [] } },
});

async function write(url: string, i: number): Promise<void> {
  const res = await fetch(`${url}/v2/query`, { method: 'POST', body: JSON.stringify(add(i)), signal: AbortSignal.timeout(5000) });
  assert.equal(res.status, 200, await res.text());
}

async function replicaLsn(replica: TestServer): Promise<number> {
  const res = await fetch(`${replica.url}/readyz`, { signal: AbortSignal.timeout(2000) });
  await res.text();
  return Number(res.headers.get('x-trellis-lsn') ?? -1);
}

async function until(what: string, check: () => Promise<boolean>, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting until ${what}`);
}

test(
  'a replica in a network namespace of its own: a cut link stops nothing on the writer, and the replica converges once it is back',
  { skip },
  async () => {
    const stream = 'netns';
    const writerDir = folder();
    const replicaDir = folder();
    // The writer listens on every address: the test reaches it on loopback, the replica over the link.
    const local = `nats://127.0.0.1:${nats!.port}`;
    const writer = await startTestServer(['--host', '0.0.0.0', '--data', writerDir, '--nats', local, '--stream', stream]);
    const args = ['--host', REPLICA_IP, '--port', '0', '--workers', '1', '--mode', 'replica', '--data', replicaDir];
    const replica = await startCli(
      [...args, '--nats', `nats://${WRITER_IP}:${nats!.port}`, '--stream', stream, '--writer-url', `http://${WRITER_IP}:${writer.port}`],
      (output) => output.includes('trellis ready'),
      { prefix: ['ip', 'netns', 'exec', NS], host: REPLICA_IP },
    );
    let cut = false;
    try {
      for (let i = 0; i < 100; i++) await write(writer.url, i);
      const first = await writerLsn(writer.url);
      await until(`the replica reaches LSN ${first}`, async () => (await replicaLsn(replica)) >= first);

      must('link', 'set', HOST_IF, 'down');
      cut = true;
      await assert.rejects(replicaLsn(replica), 'the replica is out of reach while the link is cut');
      const started = Date.now();
      for (let i = 100; i < 400; i++) await write(writer.url, i);
      assert.ok(Date.now() - started < 30_000, 'the writer answered every write while its replica was cut off');
      await new Promise((resolve) => setTimeout(resolve, 3000));
      must('link', 'set', HOST_IF, 'up');
      cut = false;

      const last = await writerLsn(writer.url);
      assert.ok(last >= first + 300, `the writer's log went on (LSN ${last})`);
      await until(`the replica reaches LSN ${last} after the link is back`, async () => (await replicaLsn(replica)) >= last);
      await replica.stop();
      await writer.stop();
      assert.deepEqual(folderDigest(replicaDir), folderDigest(writerDir));
    } finally {
      if (cut) ip('link', 'set', HOST_IF, 'up');
      await replica.stop();
      await writer.stop();
    }
  },
);
