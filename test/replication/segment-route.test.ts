/**
 * The writer's vector segment route (docs/replication.md, "Vector indexes"): a replica
 * fetches the segment files its replicated pointers name by pieces, and nothing outside
 * the segment folder can be read through it. A real server on a loopback port; no NATS
 * needed (the route is every writer's).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, tempDir } from '../helpers/server.js';
import { indexRequests, mixedWrites, namedSegments } from '../helpers/replication.js';

/** Whether every vector index's reach sweep has ended after its last add (GET /metrics). */
async function reachChecked(url: string): Promise<boolean> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const lines = text.split('\n').filter((line) => line.startsWith('trellis_vector_reach_checked{'));
  return lines.length > 0 && lines.every((line) => line.endsWith(' 1'));
}

async function piece(url: string, body: string): Promise<{ status: number; bytes: Buffer; json: { error?: string; msg?: string } | null }> {
  const res = await fetch(`${url}/v2/replication/segment`, { method: 'POST', body });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, bytes, json: res.ok ? null : (JSON.parse(bytes.toString('utf8')) as { error?: string; msg?: string }) };
}

test('POST /v2/replication/segment answers a segment file by pieces, and 404 for anything else', async () => {
  const dir = tempDir('trellis-segment-route-');
  const server = await startTestServer(['--data', dir.path]);
  try {
    for (const body of [...indexRequests(), ...mixedWrites(3, 300)]) {
      const res = await fetch(`${server.url}/v2/query`, { method: 'POST', body: JSON.stringify(body) });
      await res.text();
    }
    // Until the builder has ended its reach sweep it publishes again, and a writer no
    // replica follows deletes a replaced file at once: wait for the segments to stay.
    for (let i = 0; i < 600 && !(await reachChecked(server.url)); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const named = namedSegments(dir.path);
    const name = [...named.keys()].find((n) => n.endsWith('.usearch'));
    assert.ok(name !== undefined, 'the writer built a vector segment');
    const file = readFileSync(join(dir.path, 'vectors', name));

    const whole = await piece(server.url, JSON.stringify({ name, offset: 0 }));
    assert.equal(whole.status, 200);
    assert.ok(whole.bytes.equals(file), 'the whole file in one piece');
    const half = Math.floor(file.length / 2);
    const first = await piece(server.url, JSON.stringify({ name, offset: 0, length: half }));
    const rest = await piece(server.url, JSON.stringify({ name, offset: half, length: file.length }));
    assert.ok(Buffer.concat([first.bytes, rest.bytes]).equals(file), 'two pieces make the file');
    const past = await piece(server.url, JSON.stringify({ name, offset: file.length }));
    assert.equal(past.status, 200);
    assert.equal(past.bytes.length, 0, 'nothing past the end');

    for (const [body, why] of [
      [JSON.stringify({ name: '../data.mdb', offset: 0 }), 'a path outside the segment folder'],
      [JSON.stringify({ name: '1-99-0000abcd.usearch', offset: 0 }), 'a segment that is not there'],
      [JSON.stringify({ name, offset: -1 }), 'a negative offset'],
      [JSON.stringify({ name }), 'no offset'],
    ] as const) {
      const res = await piece(server.url, body);
      assert.equal(res.status, 404, why);
      assert.equal(res.json?.error, 'not_found', why);
      assert.match(res.json?.msg ?? '', /no vector segment/, why);
    }
    const bad = await piece(server.url, 'not json');
    assert.equal(bad.status, 400);
    assert.equal(bad.json?.error, 'invalid_query_json');
  } finally {
    await server.stop();
    dir.remove();
  }
});
