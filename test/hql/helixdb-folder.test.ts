/**
 * A HelixDB project folder as it is (issue 27 item 7): helix.toml, config.hx.json,
 * schema.hx and queries.hx, no trellis.json, served with --project DIR. config.hx.json's
 * mcp (on), bm25, embedding_model and ef_search are Trellis's settings, and its m and
 * ef_construction build the project's vector indexes (an index that exists with others
 * is kept, with a warning); helix.toml's queries folder is where the .hx files are read,
 * and its name is the project's.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadProject } from '../../src/hql/project.js';
import { get, post, postPath, readRequest, startTestServer, tempDir, writeRequest, type TestServer } from '../helpers/server.js';
import { HQL_PROJECTS } from '../helpers/hql-projects.js';

type Obj = Record<string, unknown>;

const CLI = new URL('../../src/cli.js', import.meta.url).pathname;

/** The node_vector indexes of the server, as `[label, m, ef_construction]`. */
async function vectorIndexes(server: TestServer): Promise<[unknown, unknown, unknown][]> {
  const list = await post(`${server.url}/v2/query`, readRequest([{ query: { name: 'r', root: { list_indexes: {} } } }], ['r']));
  assert.equal(list.status, 200, JSON.stringify(list.body));
  return (list.body as { r: Obj[] }).r
    .filter((index) => index.kind === 'node_vector')
    .map((index) => [index.label, index.m, index.ef_construction]);
}

/** Waits until the index operation `id` has succeeded. */
async function waitForOperation(server: TestServer, id: string): Promise<void> {
  for (let n = 0; n < 1000; n++) {
    const res = await post(
      `${server.url}/v2/query`,
      readRequest([{ query: { name: 's', root: { get_index_operation: { operation_id: id } } } }], ['s']),
    );
    if (res.status === 200 && ((res.body as { s: Obj }).s as Obj).status === 'succeeded') return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`index operation ${id} did not succeed`);
}

const MEMORY_INDEX = { node_vector: { label: 'Memory', property: 'data', dimension: 3, metric: 'cosine' } };

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

describe('a HelixDB project folder of the newer CLI: helix.toml naming its queries folder', () => {
  const project = `${HQL_PROJECTS}helix-toml-folder`;
  const dir = tempDir();
  let server: TestServer;
  before(async () => {
    // --port 0 wins over helix.toml's port; scratch/old-draft.hx (outside ./db/) does not parse and is not read.
    server = await startTestServer(['--data', dir.path, '--project', project]);
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });

  test('trellis check reads the .hx files of the queries folder only and names the project; it has nothing to note of the vector settings, all applied', () => {
    const run = spawnSync(process.execPath, [CLI, 'check', '--project', project], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /helix-toml-folder \(project agent-memory\) is valid: 6 queries, 2 node types, 1 edge types/);
    assert.doesNotMatch(run.stderr, /note:|vector_config/);
  });

  test("config.hx.json's ef_search is the beam of every vector search of the project", () => {
    const loaded = loadProject(project, { mcp: true, queries: join(project, 'db'), efSearch: 96 });
    assert.ok(loaded.ok, loaded.ok ? '' : loaded.report);
    for (const name of ['recall', 'nearest']) {
      const plan = JSON.stringify(loaded.project.queries.get(name)!.batch, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
      assert.match(plan, /"op":"vector_search_nodes(_within)?".*"ef":\{"kind":"literal","n":96\}/, name);
    }
    const plain = loadProject(project, { mcp: true, queries: join(project, 'db') });
    assert.ok(plain.ok);
    const nearest = JSON.stringify(plain.project.queries.get('nearest')!.batch, (_k, v: unknown) =>
      typeof v === 'bigint' ? Number(v) : v,
    );
    assert.match(nearest, /"ef":null/, "without ef_search: the index's default beam");
  });

  test('its queries run, split over files: nodes, vectors, searches, and the #[mcp] route (helix.toml: mcp = true)', async () => {
    const agent = ((await postPath(server, '/addAgent', { name: 'scout' })).body as Obj).agent as Obj;
    for (const [vector, content] of [
      [[1, 0, 0], 'the river floods in spring'],
      [[0, 1, 0], 'the bridge is closed'],
      [[0, 0, 1], 'bread at the market'],
    ] as const) {
      const r = await postPath(server, '/remember', { agent: agent.id, vector, content });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    }
    assert.deepEqual((await postPath(server, '/recall', { agent: agent.id, vector: [0.1, 0.9, 0], k: 1 })).body, {
      memories: ['the bridge is closed'],
    });
    assert.deepEqual((await postPath(server, '/nearest', { vector: [0, 0.2, 0.9], k: 2 })).body, {
      memories: ['bread at the market', 'the bridge is closed'],
    });
    assert.deepEqual((await postPath(server, '/mentions', { text: 'river' })).body, { memories: ['the river floods in spring'] });
    assert.deepEqual((await postPath(server, '/agentByName', { name: 'scout' })).body, { agent });
    assert.equal((await post(`${server.url}/mcp/init`, {})).status, 200);
  });

  test("config.hx.json's m 32 and ef_construction 256 are the build parameters of the vector index the first write made", async () => {
    await postPath(server, '/remember', { agent: 0, vector: [1, 1, 0], content: 'x' });
    assert.deepEqual(await vectorIndexes(server), [['Memory', 32, 256]]);
    assert.doesNotMatch(server.output(), /keeps the m/);
  });
});

describe("a HelixDB project whose vector index exists with other build parameters than config.hx.json's", () => {
  const project = `${HQL_PROJECTS}helix-toml-folder`;
  const dir = tempDir();
  let server: TestServer | undefined;
  after(async () => {
    await server?.stop();
    dir.remove();
  });

  test("the index keeps its own, with a warning at start-up; dropped, the next write makes it with the project's", async () => {
    server = await startTestServer(['--data', dir.path]);
    const made = await post(`${server.url}/v2/query`, writeRequest([{ query: { root: { create_index: { spec: MEMORY_INDEX } } } }]));
    assert.equal(made.status, 200, JSON.stringify(made.body));
    await server.stop();

    server = await startTestServer(['--data', dir.path, '--project', project]);
    assert.match(
      server.output(),
      /the vector index of Memory keeps the m 16 and ef_construction 128 it was built with; the project's m 32 and ef_construction 256 apply to an index made anew/,
    );
    const r = await postPath(server, '/remember', { agent: 0, vector: [1, 0, 0], content: 'kept' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(await vectorIndexes(server), [['Memory', 16, 128]], 'kept as it was built');

    const dropped = await post(
      `${server.url}/v2/query`,
      writeRequest([{ query: { name: 'd', root: { drop_index: { spec: MEMORY_INDEX } } } }], ['d']),
    );
    assert.equal(dropped.status, 200, JSON.stringify(dropped.body));
    // list_indexes hides an index as soon as it is dropping, but creating it again is
    // refused (index_busy) until the drop operation has finished: wait on the operation.
    await waitForOperation(server, ((dropped.body as { d: Obj }).d as Obj).operation_id as string);
    assert.equal((await postPath(server, '/remember', { agent: 0, vector: [0, 1, 0], content: 'anew' })).status, 200);
    assert.deepEqual(await vectorIndexes(server), [['Memory', 32, 256]], "made anew with the project's");
  });
});
