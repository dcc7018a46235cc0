/**
 * A HelixDB project folder as it is (issue 27 item 7): helix.toml, config.hx.json,
 * schema.hx and queries.hx, no trellis.json, served with --project DIR. config.hx.json's
 * mcp (on), bm25 and embedding_model are Trellis's settings.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { get, post, postPath, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { HQL_PROJECTS } from '../helpers/hql-projects.js';

type Obj = Record<string, unknown>;

describe('a HelixDB project folder', () => {
  const dir = tempDir();
  let server: TestServer;
  before(async () => {
    // No network here: the OpenAI endpoint config.hx.json's embedding_model means is unreachable (or answers 401 without a key).
    server = await startTestServer(['--data', dir.path, '--project', `${HQL_PROJECTS}helixdb-folder`]);
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });

  test('its queries run: nodes, vectors with edges, a search from a node, text search', async () => {
    const ann = (await postPath(server, '/addPerson', { name: 'Ann', bio: 'likes graph theory' })).body as Obj;
    const id = (ann.person as Obj).id;
    await postPath(server, '/addPerson', { name: 'Bo', bio: 'bakes bread' });
    for (const [vector, content] of [
      [[1, 0], 'met Bo at the bakery'],
      [[0, 1], 'read a graph paper'],
    ] as const) {
      const r = await postPath(server, '/remember', { person: id, vector, content });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    const recall = await postPath(server, '/recall', { person: id, vector: [0.1, 0.9], k: 1 });
    assert.deepEqual(recall.body, { memories: ['read a graph paper'] });
    const people = await postPath(server, '/findPeople', { text: 'bread' });
    assert.deepEqual(people.body, { people: ['Bo'] });
  });

  test("config.hx.json's mcp (HelixDB's default: on) serves the #[mcp] query's route", async () => {
    const init = await post(`${server.url}/mcp/init`, {});
    assert.equal(init.status, 200, JSON.stringify(init.body));
    const health = await get(`${server.url}/healthz`);
    assert.equal(health.status, 200);
  });

  test("Embed() goes to config.hx.json's embedding_model at OpenAI: unreachable here, 502 and nothing written", async () => {
    const before = (await postPath(server, '/recall', { person: 0, vector: [1, 0], k: 10 })).body as Obj;
    const answer = await postPath(server, '/rememberText', { person: 0, content: 'x' });
    assert.equal(answer.status, 502, JSON.stringify(answer.body));
    assert.equal((answer.body as Obj).error, 'embedding_provider_error');
    assert.match((answer.body as Obj).msg as string, /api\.openai\.com\/v1\/embeddings.*text-embedding-ada-002/);
    assert.deepEqual((await postPath(server, '/recall', { person: 0, vector: [1, 0], k: 10 })).body, before);
  });
});
