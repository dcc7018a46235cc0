/**
 * A replica started with a project of a later schema version than its data (docs/query-
 * language.md, "Schema versions and migrations"): it never migrates, so it stays not ready
 * until the writer's migration reaches it through the change log, then serves the
 * migrated data. Real nats-server, real writer and replica processes.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { okCall, writeHqlProject } from '../helpers/hql-project.js';
import { natsSuite } from '../helpers/nats.js';
import { freePort } from '../helpers/redis.js';
import { get, postPath, startTestServer, waitUntil, type TestServer } from '../helpers/server.js';

const suite = natsSuite('trellis-repl-schema-');
const { skip, folder } = suite;

const V1 = 'N::User { name: String, age: I32 }\n';
const P1_QUERIES = 'QUERY addUser(name: String, age: I32) => u <- AddN<User>({name: name, age: age}) RETURN u\n';
const P2_SCHEMA =
  `schema::1 {\n${V1}}\nschema::2 {\nN::User { username: String, age: I64 }\n}\n` +
  'MIGRATION schema::1 => schema::2 {\n    N::User => _::{ username: name, .. }\n}\n';
const P2_QUERIES = 'QUERY users() => u <- N<User> RETURN u::{username, age}\n';

test('a replica with a later project waits, not ready, until the writer migrates, then serves the migrated data', { skip }, async () => {
  const stream = 'schema';
  const writerDir = folder();
  const p1 = writeHqlProject(join(folder(), 'p1'), V1, P1_QUERIES);
  const p2 = writeHqlProject(join(folder(), 'p2'), P2_SCHEMA, P2_QUERIES);
  // A port given by number, as a deployment gives one: uSockets sets SO_REUSEADDR only then,
  // and the restarted writer binds it at once despite its closed connections' TIME_WAIT.
  const port = String(await freePort());
  const writerArgs = (project: string) => [
    '--data',
    writerDir,
    '--project',
    project,
    '--nats',
    suite.nats.url,
    '--stream',
    stream,
    '--port',
    port,
  ];
  let writer = await startTestServer(writerArgs(p1));
  let replica: TestServer | undefined;
  try {
    await okCall(writer, 'addUser', { name: 'ann', age: 30 });
    const args = ['--mode', 'replica', '--data', folder(), '--nats', suite.nats.url, '--writer-url', writer.url, '--stream', stream];
    replica = await startTestServer([...args, '--project', p2], { waitReady: false });
    const r = replica;
    await waitUntil(r, 'the replica waiting for schema::2', () => r.output().includes('not ready until the writer migrates it'));
    assert.equal((await get(`${r.url}/readyz`)).status, 503);
    assert.equal((await postPath(r, '/users', {})).status, 503, 'no query of schema::2 is answered from schema::1 data');
    // The writer restarts with the project of schema::2 (on its port: the replica's --writer-url) and migrates.
    await writer.stop();
    writer = await startTestServer(writerArgs(p2));
    assert.match(writer.output(), /the data is migrated from schema::1 to schema::2/);
    await waitUntil(r, 'the replica ready', async () => (await get(`${r.url}/readyz`)).status === 200);
    assert.deepEqual(await okCall(r, 'users'), { u: [{ username: 'ann', age: 30 }] });
    assert.match(r.output(), /the data is at schema::2: serving/);
  } finally {
    await replica?.stop();
    await writer.stop();
  }
});
