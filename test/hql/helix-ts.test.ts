/**
 * The legacy npm client of HelixDB's named queries, `helix-ts` 1.0.8 from the registry
 * (`new HelixDB(url).query(name, params)`, which POSTs JSON to /<name> and returns the
 * parsed body whatever the status), against a real server with the social project: it
 * works unchanged, its `x-api-key` header included (a local server asks for no key).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { HelixDB } from 'helix-ts';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { SOCIAL } from '../helpers/hql-projects.js';

const dir = tempDir();
let server: TestServer;
before(async () => {
  server = await startTestServer(['--data', dir.path, '--project', SOCIAL]);
});
after(async () => {
  await server.stop();
  dir.remove();
});

test('helix-ts creates, links and reads through named queries', async () => {
  const client = new HelixDB(server.url, 'a-key-the-local-server-ignores');
  const alice = await client.query('addUser', { name: 'Alice', age: 30, email: 'alice@example.com' });
  const bob = await client.query('addUser', { name: 'Bob', age: 25, email: 'bob@example.com' });
  assert.equal(alice.user.name, 'Alice');
  const edge = await client.query('follow', { from: alice.user.id, to: bob.user.id, since: 2024 });
  assert.deepEqual(
    { from: edge.edge.from_node, to: edge.edge.to_node, since: edge.edge.since },
    { from: alice.user.id, to: bob.user.id, since: 2024 },
  );
  const followers = await client.query('followers', { id: bob.user.id });
  assert.deepEqual(
    followers.followers.map((u: { name: string }) => u.name),
    ['Alice'],
  );
  assert.deepEqual(await client.query('countUsers', {}), { n: 2 });
});

test('helix-ts receives error bodies as data, as it always did', async () => {
  const client = new HelixDB(server.url);
  const notFound = await client.query('getUser', { id: 12345 });
  assert.deepEqual(Object.keys(notFound), ['error', 'msg']);
  assert.equal(notFound.error, 'node_not_found');
  assert.match(notFound.msg, /node 12345 does not exist/);
  const missing = await client.query('addUser', { name: 'NoAge' });
  assert.equal(missing.error, 'invalid_parameter');
  assert.match(missing.msg, /"age" \(U8\) is missing/);
});
