/**
 * The standard MCP endpoint through the gateway: an agent client (the SDK's own Client
 * over Streamable HTTP, with an API key and the database header) reaches a real server's
 * /mcp, whose transport needs the client's Accept and MCP-Protocol-Version headers; a
 * JSON-RPC batch (an array) is forwarded, not refused as "not an object"; a key that may
 * only read is refused (a tool call may write), and a request without a key never reaches
 * a server. Rate limiting is off here (no Redis): the token a call costs is the limiter's
 * business, tested with the other routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call, startTestGateway, testKey } from '../helpers/gateway.js';
import { SOCIAL } from '../helpers/hql-projects.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';

const writerKey = testKey('agent', { social: ['read', 'write'] });
const readerKey = testKey('reader', { social: ['read'] });

describe('the MCP endpoint through the gateway', () => {
  const dir = tempDir();
  let server: TestServer;
  let gateway: TestServer;

  before(async () => {
    server = await startTestServer(['--data', dir.path, '--project', SOCIAL]);
    gateway = await startTestGateway({
      mode: 'shared',
      redis: { url: 'redis://127.0.0.1:1' },
      rate_limit: false,
      metrics: false,
      databases: { social: { writer: server.url } },
      keys: [writerKey, readerKey],
    });
    const added = await call(
      gateway.url,
      '/addUser',
      { name: 'Ada', age: 36, email: 'ada@example.com' },
      { key: writerKey.key, database: 'social' },
    );
    assert.equal(added.status, 200, added.text);
  });
  after(async () => {
    await gateway?.stop();
    await server?.stop();
    dir.remove();
  });

  test("the SDK's client lists the tools and calls an #[mcp] query through the gateway", async () => {
    const client = new Client({ name: 'gateway-test', version: '1.0.0' });
    const headers = { authorization: `Bearer ${writerKey.key}`, 'x-svc-database-id': 'social' };
    await client.connect(new StreamableHTTPClientTransport(new URL(`${gateway.url}/mcp`), { requestInit: { headers } }));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(tools, ['trellis_counts', 'trellis_indexes', 'trellis_schema', 'userByName']);
      const result = (await client.callTool({ name: 'userByName', arguments: { name: 'Ada' } })) as CallToolResult;
      assert.equal(result.isError, undefined);
      const body = JSON.parse((result.content[0] as { text: string }).text);
      assert.equal(body.user.name, 'Ada');
      assert.equal(body.user.email, 'ada@example.com');
    } finally {
      await client.close();
    }
  });

  test('a JSON-RPC batch is forwarded as it is; a read-only key and a missing key are refused at the gateway', async () => {
    const mcpHeaders = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const batch = await call(gateway.url, '/mcp', [ping], { key: writerKey.key, database: 'social', headers: mcpHeaders });
    // The gateway did not refuse the array, and the Accept header reached the server (its
    // transport answers 406 without it): the server's answer to the ping comes back.
    assert.equal(batch.status, 200, batch.text);
    assert.deepEqual(batch.body, { result: {}, jsonrpc: '2.0', id: 1 });

    const readOnly = await call(gateway.url, '/mcp', ping, { key: readerKey.key, database: 'social', headers: mcpHeaders });
    assert.equal(readOnly.status, 403);
    assert.equal(readOnly.body.error, 'forbidden');

    const noKey = await call(gateway.url, '/mcp', ping, { database: 'social', headers: mcpHeaders });
    assert.deepEqual([noKey.status, noKey.body.error], [400, 'invalid_request']);
    assert.match(noKey.body.msg, /Authorization header is missing/);
  });
});
