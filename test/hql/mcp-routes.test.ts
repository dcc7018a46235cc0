/**
 * The contract's agent-protocol routes (DECISIONS D18) on a real server: /mcp/init, an
 * #[mcp] query at /mcp/<QueryName>Mcp answering what POST /<QueryName> answers, unknown
 * connections, bad bodies, and a project with MCP off.
 */
import assert from 'node:assert/strict';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SOCIAL } from '../helpers/hql-projects.js';
import { get, postPath, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

describe('MCP on (the social project says "mcp": true)', () => {
  const dir = tempDir();
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--data', dir.path, '--project', SOCIAL]);
    await postPath(server, '/addUser', { name: 'Ada', age: 36, email: 'ada@example.com' });
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });

  test('init gives a connection; the Mcp route answers what the named route answers', async () => {
    const init = await postPath(server, '/mcp/init', {});
    assert.equal(init.status, 200);
    assert.deepEqual(Object.keys(init.body), ['connection_id']);
    const id = init.body.connection_id as string;
    const viaMcp = await postPath(server, '/mcp/userByNameMcp', { connection_id: id, data: { name: 'Ada' } });
    const direct = await postPath(server, '/userByName', { name: 'Ada' });
    assert.equal(viaMcp.status, 200);
    assert.deepEqual(viaMcp.body, direct.body);
    assert.equal((viaMcp.body.user as { name: string }).name, 'Ada');
    // The connection stays usable.
    assert.equal((await postPath(server, '/mcp/userByNameMcp', { connection_id: id, data: { name: 'Nobody' } })).body.user, null);
  });

  test('GET on the MCP routes is 405, naming POST', async () => {
    for (const path of ['/mcp/init', '/mcp/userByNameMcp']) {
      const reply = await get(`${server.url}${path}`);
      assert.deepEqual([reply.status, reply.headers.get('allow')], [405, 'POST'], path);
    }
  });

  test('an unknown or missing connection is 400 invalid_connection', async () => {
    const unknown = await postPath(server, '/mcp/userByNameMcp', { connection_id: 'made-up', data: { name: 'Ada' } });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error, 'invalid_connection');
    assert.match(unknown.body.msg as string, /connection "made-up" is not known here/);
    const missing = await postPath(server, '/mcp/userByNameMcp', { data: { name: 'Ada' } });
    assert.deepEqual([missing.status, missing.body.error], [400, 'invalid_connection']);
  });

  test('bad bodies and parameters are 400 with the named route codes', async () => {
    const id = (await postPath(server, '/mcp/init', {})).body.connection_id;
    const noData = await postPath(server, '/mcp/userByNameMcp', { connection_id: id });
    assert.equal(noData.status, 400);
    assert.equal(noData.body.error, 'invalid_query_json');
    const extraKey = await postPath(server, '/mcp/userByNameMcp', { connection_id: id, data: {}, more: 1 });
    assert.deepEqual([extraKey.status, extraKey.body.error], [400, 'invalid_query_json']);
    const badParam = await postPath(server, '/mcp/userByNameMcp', { connection_id: id, data: { name: 7 } });
    assert.equal(badParam.status, 400);
    assert.equal(badParam.body.error, 'invalid_parameter');
  });

  test('only #[mcp] queries have an Mcp route', async () => {
    const id = (await postPath(server, '/mcp/init', {})).body.connection_id;
    const res = await postPath(server, '/mcp/usersMcp', { connection_id: id, data: {} });
    assert.equal(res.status, 404);
    assert.equal(res.body.error, 'not_found');
  });
});

describe('MCP off ("mcp": false)', () => {
  const dir = tempDir();
  const project = tempDir();
  let server: TestServer;
  before(async () => {
    cpSync(SOCIAL, project.path, { recursive: true });
    writeFileSync(join(project.path, 'trellis.json'), '{"mcp": false}');
    server = await startTestServer(['--data', dir.path, '--project', project.path]);
  });
  after(async () => {
    await server.stop();
    dir.remove();
    project.remove();
  });

  test('the MCP routes are 404 and the named queries are still served', async () => {
    assert.equal((await postPath(server, '/mcp/init', {})).status, 404);
    assert.equal((await postPath(server, '/mcp/userByNameMcp', { connection_id: 'x', data: { name: 'A' } })).status, 404);
    assert.equal((await postPath(server, '/userByName', { name: 'A' })).status, 200);
  });
});
