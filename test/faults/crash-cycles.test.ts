/**
 * Issue 9, fault suite 2: kill -9 crash cycles with concurrent writers.
 *
 * Each cycle: four writer clients send self-describing batches (test/helpers/crash-batches.ts)
 * as fast as they are answered, about half with X-Svc-Await-Durable: true; at a random
 * moment while writes are in flight the server gets SIGKILL; it restarts on the same folder,
 * and then every batch answered 200 (in this cycle or any before) must be present whole with
 * the ids of its answer; a batch whose answer was lost must be present whole or absent,
 * never in part, and stay that way; no id is reused (every batch of a cycle has ids above
 * the greatest the database held when the cycle began); and the restarted server accepts a
 * write at once. A process crash keeps the OS page cache, so plain and await-durable writes
 * must both survive; power loss is not simulated.
 *
 * TRELLIS_CRASH_CYCLES (default 3) runs more cycles; TRELLIS_CRASH_SEED (default: random,
 * printed) fixes the batches and kill delays (the kill moment still depends on timing).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { batchRequest, checkSnapshot, idsOfAnswer, newBatch, SNAPSHOT_REQUEST, type Batch } from '../helpers/crash-batches.js';
import { countFromEnv, Rng, seedFromEnv } from '../helpers/prng.js';
import { killOnExit } from '../helpers/reap.js';
import { post, startTestServer, tempDir } from '../helpers/server.js';

const CYCLES = countFromEnv('TRELLIS_CRASH_CYCLES', 3);
const SEED = seedFromEnv('TRELLIS_CRASH_SEED');
const CLIENTS = 4;
/** The client number of the single write each restarted server gets before the next cycle. */
const PROBE = CLIENTS;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(
  `kill -9 during concurrent writes, ${CYCLES} cycles: every acknowledged batch whole, none partial, ids never reused`,
  { timeout: Math.max(120_000, CYCLES * 30_000) },
  async (t) => {
    const replay = `TRELLIS_CRASH_SEED=${SEED} TRELLIS_CRASH_CYCLES=${CYCLES} node --test dist/test/faults/crash-cycles.test.js`;
    t.diagnostic(`seed ${SEED} (replay: ${replay})`);
    const rng = new Rng(SEED);
    const clientRngs = Array.from({ length: CLIENTS + 1 }, () => rng.fork());
    const batches = new Map<string, Batch>();
    const floors = new Map<number, { node: number; edge: number }>([[0, { node: -1, edge: -1 }]]);
    const seqs = new Array<number>(CLIENTS + 1).fill(0);
    const nextSeq = (client: number) => {
      const seq = seqs[client]!;
      seqs[client] = seq + 1;
      return seq;
    };
    const failures: string[] = [];
    /** True from just before a kill until the restart: only then may a request die unanswered. */
    let killing = false;
    const dir = tempDir('trellis-crash-');
    let server = killOnExit(await startTestServer(['--data', dir.path]));
    try {
      const send = async (b: Batch, url: string): Promise<void> => {
        batches.set(b.key, b);
        let res;
        try {
          res = await post(`${url}/v2/query`, batchRequest(b), b.durable ? { 'X-Svc-Await-Durable': 'true' } : {});
        } catch (err) {
          b.state = 'lost'; // the connection died with the server: the outcome is unknown
          if (!killing) failures.push(`batch ${b.key} failed while the server was up: ${String(err)}`);
          return;
        }
        if (res.status !== 200) {
          b.state = 'refused';
          failures.push(`batch ${b.key} was answered ${res.status} ${res.text.slice(0, 300)}`);
          return;
        }
        Object.assign(b, idsOfAnswer(b, res.body));
        b.state = 'acked';
      };

      for (let cycle = 0; cycle < CYCLES; cycle++) {
        // Writers.
        let stopped = false;
        let inFlight = 0;
        let ackedThisCycle = 0;
        const url = server.url;
        const writers = Array.from({ length: CLIENTS }, async (_, client) => {
          while (!stopped) {
            const b = newBatch(clientRngs[client]!, cycle, client, nextSeq(client));
            inFlight++;
            await send(b, url);
            inFlight--;
            if (b.state === 'acked') ackedThisCycle++;
            if (b.state === 'lost') return;
          }
        });
        // Kill at a random moment once a few batches were answered, while some are in flight.
        const minAcked = rng.between(1, 30);
        const extraDelay = rng.between(0, 250);
        const deadline = Date.now() + 15_000;
        while (ackedThisCycle < minAcked && Date.now() < deadline && failures.length === 0) await sleep(2);
        await sleep(extraDelay);
        while (inFlight === 0 && Date.now() < deadline) await sleep(1);
        const inFlightAtKill = inFlight;
        stopped = true;
        killing = true;
        await server.kill9();
        await Promise.all(writers);
        assert.deepEqual(failures, [], `cycle ${cycle}: writes failed while the server was up (seed ${SEED})`);
        assert.ok(inFlightAtKill > 0, 'the kill came while writes were in flight');

        // Restart on the same folder (startTestServer waits until it logs that it is ready)
        // and check everything written so far.
        server = killOnExit(await startTestServer(['--data', dir.path]));
        killing = false;
        for (const b of batches.values()) if (b.state === 'pending') b.state = 'lost';
        const snap = await post(`${server.url}/v2/query`, SNAPSHOT_REQUEST);
        assert.equal(snap.status, 200, snap.text.slice(0, 500));
        const verdict = checkSnapshot(batches, snap.body, floors);
        t.diagnostic(
          `cycle ${cycle}: killed after ${ackedThisCycle} answered batches with ${inFlightAtKill} in flight; ` +
            `${snap.body.nodes.length} nodes, ${snap.body.edges.length} edges; batches ${JSON.stringify(verdict.counts)}`,
        );
        assert.deepEqual(verdict.problems.slice(0, 20), [], `cycle ${cycle} (seed ${SEED}; replay: ${replay})`);

        // The restarted server accepts writes, with ids above every id it held.
        const floor = { node: verdict.maxNodeId, edge: verdict.maxEdgeId };
        floors.set(cycle + 1, floor);
        const probe = newBatch(clientRngs[PROBE]!, cycle + 1, PROBE, nextSeq(PROBE));
        await send(probe, server.url);
        assert.equal(probe.state, 'acked', `the write after restart ${cycle}: ${failures.join('; ')}`);
        assert.ok(
          Math.min(...probe.nodeIds!) > floor.node,
          `node ids ${probe.nodeIds} after restart, the database held up to ${floor.node}`,
        );
        assert.ok(
          Math.min(...probe.edgeIds!) > floor.edge,
          `edge ids ${probe.edgeIds} after restart, the database held up to ${floor.edge}`,
        );
      }

      // A last look after the final probe, then a clean stop.
      const snap = await post(`${server.url}/v2/query`, SNAPSHOT_REQUEST);
      const verdict = checkSnapshot(batches, snap.body, floors);
      assert.deepEqual(verdict.problems.slice(0, 20), [], `final check (seed ${SEED}; replay: ${replay})`);
      const durable = [...batches.values()].filter((b) => b.state === 'acked' && b.durable).length;
      const plain = [...batches.values()].filter((b) => b.state === 'acked' && !b.durable).length;
      assert.ok(durable > 0 && plain > 0, `both kinds of write were acknowledged (${durable} await-durable, ${plain} plain)`);
      t.diagnostic(`acknowledged: ${durable} await-durable, ${plain} plain; all present whole after ${CYCLES} kills`);
    } finally {
      await server.stop();
      dir.remove();
    }
  },
);
