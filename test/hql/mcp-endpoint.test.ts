/**
 * The standard MCP endpoint (issue 11) on a real server, driven by the SDK's own client
 * (Client + StreamableHTTPClientTransport): initialize, tools/list with the parameter
 * schemas, tools/call answering what POST /<QueryName> answers, query errors as isError
 * results, the schema tools on real data, an unknown tool, the HTTP side of the transport
 * (GET/DELETE 405, no sessions, parse errors, exact integers) and a project with MCP off.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SOCIAL } from '../helpers/hql-projects.js';
import { fencedBlocks } from '../helpers/markdown.js';
import { postPath, startTestServer, tempDir, type TestServer } from '../helpers/server.js';

/** Added to a copy of the social project: #[mcp] queries of every parameter type, a U64 field, an id lookup. */
const MCP_HX = `
N::Counter {
    INDEX key: String,
    big: U64,
}

#[mcp]
QUERY typed(s: String, b: Boolean, u8: U8, i32: I32, i64: I64, u64: U64, u128: U128, f32: F32, f64: F64, d: Date, id: ID, tags: [String], point: {x: I32, y: I32}, maybe?: U16) =>
    RETURN "ok"

#[mcp]
QUERY setCounter(key: String, big: U64) =>
    counter <- AddN<Counter>({key: key, big: big})
    RETURN counter

#[mcp]
QUERY userById(id: ID) =>
    user <- N<User>(id)
    RETURN user
`;

const TYPED_ARGS = {
  s: 'x',
  b: true,
  u8: 255,
  i32: -5,
  i64: 7,
  u64: 8,
  u128: 9,
  f32: 1.5,
  f64: 2,
  d: '2026-01-02T03:04:05Z',
  id: '12',
  tags: ['a', 'b'],
  point: { x: 1, y: 2 },
};

/** A JSON-RPC POST as a Streamable HTTP client sends it, without initializing first. */
async function rpc(server: TestServer, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body,
  });
}

async function connect(server: TestServer): Promise<Client> {
  const client = new Client({ name: 'trellis-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
  return client;
}

function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  assert.equal(content.length, 1);
  assert.equal(content[0]!.type, 'text');
  return (content[0] as { text: string }).text;
}

describe('the MCP endpoint ("mcp": true)', () => {
  const dir = tempDir();
  const project = tempDir();
  let server: TestServer;
  let client: Client;
  before(async () => {
    cpSync(SOCIAL, project.path, { recursive: true });
    writeFileSync(join(project.path, 'mcp.hx'), MCP_HX);
    server = await startTestServer(['--data', dir.path, '--project', project.path]);
    const ada = JSON.parse((await postPath(server, '/addUser', { name: 'Ada', age: 36, email: 'ada@example.com' })).text);
    const bob = JSON.parse((await postPath(server, '/addUser', { name: 'Bob', age: 41, email: 'bob@example.com' })).text);
    await postPath(server, '/follow', { from: ada.user.id, to: bob.user.id, since: 2020 });
    await postPath(server, '/addPost', { author: ada.user.id, title: 'Hello' });
    client = await connect(server);
  });
  after(async () => {
    await client.close();
    await server.stop();
    dir.remove();
    project.remove();
  });

  test('initialize: the server names itself, offers tools and says what they are', () => {
    assert.equal(client.getServerVersion()?.name, 'trellis');
    assert.deepEqual(client.getServerCapabilities()?.tools, {});
    assert.match(client.getInstructions() ?? '', /#\[mcp\] queries.*trellis_schema, trellis_indexes and trellis_counts/);
  });

  test('tools/list: the #[mcp] queries and the schema tools, with JSON Schemas of the parameter types', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    assert.deepEqual(
      tools.map((t) => t.name).sort(),
      ['setCounter', 'trellis_counts', 'trellis_indexes', 'trellis_schema', 'typed', 'userById', 'userByName'],
      'queries without #[mcp] (users, addUser, ...) are not tools',
    );
    assert.deepEqual(byName.get('userByName')!.inputSchema, {
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
      additionalProperties: false,
    });
    assert.match(byName.get('userByName')!.description!, /userByName\(name: String\).*reads only.*POST \/userByName/);
    const doc = readFileSync(new URL('../../../docs/query-language.md', import.meta.url), 'utf8');
    const example = fencedBlocks(doc).find((b) => b.info === 'json mcp tool');
    assert.deepEqual(JSON.parse(example!.body), byName.get('userByName'), 'the example tool of docs/query-language.md');
    assert.deepEqual(byName.get('userByName')!.annotations, { readOnlyHint: true, openWorldHint: false });
    assert.equal(byName.get('setCounter')!.annotations!.readOnlyHint, false, 'a query that writes is not read-only');
    assert.match(byName.get('typed')!.description!, /typed\(s: String, .*point: \{x: I32, y: I32\}, maybe\?: U16\)/);
    const integer = (name: string, min: number | null, max: number | null, range: string) => ({
      type: 'integer',
      ...(min === null ? {} : { minimum: min }),
      ...(max === null ? {} : { maximum: max }),
      description: `${name}: an integer from ${range}`,
    });
    assert.deepEqual(byName.get('typed')!.inputSchema, {
      type: 'object',
      properties: {
        s: { type: 'string' },
        b: { type: 'boolean' },
        u8: integer('U8', 0, 255, '0 to 255'),
        i32: integer('I32', -2147483648, 2147483647, '-2147483648 to 2147483647'),
        // The ends of I64, U64 and U128 are beyond a double's exact integers: described, not bounds.
        i64: integer('I64', null, null, '-9223372036854775808 to 9223372036854775807'),
        u64: integer('U64', 0, null, '0 to 18446744073709551615'),
        u128: integer('U128', 0, null, '0 to 340282366920938463463374607431768211455'),
        f32: { type: 'number', minimum: -3.4028234663852886e38, maximum: 3.4028234663852886e38, description: 'F32' },
        f64: { type: 'number', description: 'F64' },
        d: { type: 'string', format: 'date-time', description: 'Date: an RFC 3339 date-time, e.g. "2026-01-02T03:04:05Z"' },
        id: {
          anyOf: [
            { type: 'integer', minimum: 0 },
            { type: 'string', pattern: '^[0-9]{1,20}$' },
          ],
          description: 'ID: an element id, a non-negative integer up to 9223372036854775807 (or its digits as a string)',
        },
        tags: { type: 'array', items: { type: 'string' } },
        point: {
          type: 'object',
          properties: {
            x: integer('I32', -2147483648, 2147483647, '-2147483648 to 2147483647'),
            y: integer('I32', -2147483648, 2147483647, '-2147483648 to 2147483647'),
          },
          required: ['x', 'y'],
          additionalProperties: false,
        },
        maybe: integer('U16', 0, 65535, '0 to 65535'),
      },
      required: ['s', 'b', 'u8', 'i32', 'i64', 'u64', 'u128', 'f32', 'f64', 'd', 'id', 'tags', 'point'],
      additionalProperties: false,
    });
    for (const name of ['trellis_schema', 'trellis_indexes', 'trellis_counts']) {
      assert.deepEqual(byName.get(name)!.inputSchema, { type: 'object', properties: {}, additionalProperties: false });
      assert.equal(byName.get(name)!.annotations!.readOnlyHint, true);
    }
    assert.match(byName.get('trellis_indexes')!.description!, /does not build secondary, text or vector indexes yet/);
  });

  test('tools/call answers, as text, exactly the body POST /<QueryName> answers, and as structured content', async () => {
    const direct = await postPath(server, '/userByName', { name: 'Ada' });
    assert.equal(direct.status, 200);
    const result = await client.callTool({ name: 'userByName', arguments: { name: 'Ada' } });
    assert.equal(result.isError, undefined);
    assert.equal(text(result), direct.text);
    assert.deepEqual(result.structuredContent, JSON.parse(direct.text));
    assert.equal((result.structuredContent as { user: { name: string } }).user.name, 'Ada');
    const nobody = await client.callTool({ name: 'userByName', arguments: { name: 'Nobody' } });
    assert.equal(text(nobody), '{"user":null}');
    const typed = await client.callTool({ name: 'typed', arguments: TYPED_ARGS });
    assert.equal(text(typed), (await postPath(server, '/typed', TYPED_ARGS)).text);
    assert.deepEqual(typed.structuredContent, { data: 'ok' });
    // An optional parameter may be given.
    assert.equal(text(await client.callTool({ name: 'typed', arguments: { ...TYPED_ARGS, maybe: 3 } })), '{"data":"ok"}');
  });

  test("a query's error is a tool result with isError and the named route's error body", async () => {
    const cases: [string, Record<string, unknown>, string, RegExp][] = [
      ['userByName', { name: 7 }, 'invalid_parameter', /parameter "name" must be a String/],
      ['userByName', {}, 'invalid_parameter', /parameter "name" \(String\) is missing/],
      ['userByName', { name: 'Ada', extra: 1 }, 'invalid_parameter', /unknown parameter "extra"/],
      ['typed', { ...TYPED_ARGS, u8: 256 }, 'invalid_parameter', /"u8" is 256, out of the range of U8/],
      ['typed', { ...TYPED_ARGS, f64: 'x' }, 'invalid_parameter', /"f64" must be a number/],
      ['typed', { ...TYPED_ARGS, point: { x: 1 } }, 'invalid_parameter', /"point"\.y \(I32\) is missing/],
      ['userById', { id: 999 }, 'node_not_found', /999/],
      ['trellis_schema', { any: 1 }, 'invalid_parameter', /unknown parameter "any"/],
    ];
    for (const [name, args, code, msg] of cases) {
      const result = await client.callTool({ name, arguments: args });
      assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}`);
      assert.equal(result.structuredContent, undefined);
      const body = JSON.parse(text(result)) as { error: string; msg: string };
      assert.deepEqual(Object.keys(body), ['error', 'msg']);
      assert.equal(body.error, code);
      assert.match(body.msg, msg);
      if (!name.startsWith('trellis_')) {
        const direct = await postPath(server, `/${name}`, args);
        assert.equal(direct.status, code === 'node_not_found' ? 404 : 400);
        assert.equal(text(result), direct.text, 'the same body as the named route');
      }
    }
  });

  test('an unknown tool is a JSON-RPC error (invalid params), not a result', async () => {
    await assert.rejects(client.callTool({ name: 'users', arguments: {} }), (err: unknown) => {
      assert.ok(err instanceof McpError);
      assert.equal(err.code, ErrorCode.InvalidParams);
      assert.match(err.message, /no tool named "users"; the tools: .*userByName/);
      return true;
    });
  });

  test('trellis_schema: the node, edge and vector types with their fields', async () => {
    const result = await client.callTool({ name: 'trellis_schema', arguments: {} });
    assert.equal(result.isError, undefined);
    const schema = result.structuredContent as Record<string, unknown>;
    assert.deepEqual(JSON.parse(text(result)), schema);
    assert.deepEqual(schema, {
      implicit_fields: { node: ['id', 'label'], edge: ['id', 'label', 'from_node', 'to_node'] },
      // Files are read in path order: mcp.hx before schema.hx.
      nodes: [
        {
          name: 'Counter',
          fields: [
            { name: 'key', type: 'String', index: 'INDEX' },
            { name: 'big', type: 'U64' },
          ],
        },
        {
          name: 'User',
          fields: [
            { name: 'name', type: 'String', index: 'INDEX' },
            { name: 'age', type: 'U8' },
            { name: 'email', type: 'String' },
            { name: 'created_at', type: 'Date', default: 'NOW' },
          ],
        },
        {
          name: 'Post',
          fields: [
            { name: 'title', type: 'String' },
            { name: 'likes', type: 'U32', default: '0' },
          ],
        },
      ],
      edges: [
        { name: 'Follows', from: 'User', to: 'User', unique: false, properties: [{ name: 'since', type: 'I64' }] },
        { name: 'Created', from: 'User', to: 'Post', unique: false, properties: [] },
      ],
      vectors: [],
    });
  });

  test('trellis_indexes: the INDEX fields of the schema', async () => {
    const result = await client.callTool({ name: 'trellis_indexes' });
    assert.deepEqual(result.structuredContent, {
      indexes: [
        { type: 'Counter', field: 'key', unique: false },
        { type: 'User', field: 'name', unique: false },
      ],
    });
  });

  test('trellis_counts: the nodes of each node type and the edges of each edge type, now', async () => {
    const before = await client.callTool({ name: 'trellis_counts' });
    assert.equal(before.isError, undefined);
    assert.deepEqual(before.structuredContent, { nodes: { Counter: 0, User: 2, Post: 1 }, edges: { Follows: 1, Created: 1 } });
    assert.deepEqual(JSON.parse(text(before)), before.structuredContent);
    const write = await client.callTool({ name: 'setCounter', arguments: { key: 'k', big: 5 } });
    assert.equal(write.isError, undefined);
    const afterWrite = await client.callTool({ name: 'trellis_counts', arguments: {} });
    assert.deepEqual((afterWrite.structuredContent as { nodes: unknown }).nodes, { Counter: 1, User: 2, Post: 1 });
  });

  test('integers keep every digit: the body is read as the named route reads it', async () => {
    // 2^53 + 1: JSON.parse would read 9007199254740992.
    const big = '9007199254740993';
    const res = await rpc(
      server,
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"setCounter","arguments":{"key":"big","big":${big}}}}`,
    );
    assert.equal(res.status, 200);
    const reply = JSON.parse(await res.text()) as { id: number; result: CallToolResult };
    assert.equal(reply.id, 1);
    assert.equal(reply.result.isError, undefined);
    const body = text(reply.result);
    assert.match(body, new RegExp(`"big":${big}[,}]`));
    const direct = await postPath(server, '/setCounter', `{"key":"big","big":${big}}`);
    assert.equal(body.replace(/"id":\d+/, '"id":_'), direct.text.replace(/"id":\d+/, '"id":_'), 'as the named route answers');
    // A double cannot hold the answer's integer: no structured content, the text has it exactly.
    assert.equal(reply.result.structuredContent, undefined);
    // A float for an integer parameter is refused, as the named route refuses it.
    const float = await rpc(
      server,
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"setCounter","arguments":{"key":"f","big":5.0}}}',
    );
    const floatReply = JSON.parse(await float.text()) as { result: CallToolResult };
    assert.equal(floatReply.result.isError, true);
    assert.match((JSON.parse(text(floatReply.result)) as { msg: string }).msg, /"big" must be an integer \(U64\), got the number 5/);
  });

  test('stateless: any request stands alone, without initialize and without a session id', async () => {
    const res = await rpc(server, '{"jsonrpc":"2.0","id":"a","method":"tools/list"}');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.equal(res.headers.get('mcp-session-id'), null);
    const reply = JSON.parse(await res.text()) as { id: string; result: { tools: { name: string }[] } };
    assert.equal(reply.id, 'a');
    assert.equal(reply.result.tools.length, 7);
    // A notification alone is accepted with no body.
    const note = await rpc(server, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
    assert.equal(note.status, 202);
    assert.equal(await note.text(), '');
  });

  test('the HTTP side: GET and DELETE are 405 (no SSE stream, no sessions); bad requests as the transport answers them', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST');
      assert.equal(((await res.json()) as { error: string }).error, 'method_not_allowed');
    }
    const notJson = await rpc(server, '{"jsonrpc":');
    assert.equal(notJson.status, 400);
    const parseError = (await notJson.json()) as { error: { code: number; message: string }; id: null };
    assert.equal(parseError.error.code, ErrorCode.ParseError);
    assert.match(parseError.error.message, /^Parse error: .* at line 1 column 12$/);
    assert.equal(parseError.id, null);
    const noAccept = await rpc(server, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { accept: 'application/json' });
    assert.equal(noAccept.status, 406, 'a Streamable HTTP client accepts JSON and event streams');
    const wrongType = await rpc(server, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'content-type': 'text/plain' });
    assert.equal(wrongType.status, 415);
    const badVersion = await rpc(server, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', { 'mcp-protocol-version': '1999-01-01' });
    assert.equal(badVersion.status, 400);
    const notRpc = await rpc(server, '{"id":1}');
    assert.equal(notRpc.status, 400);
    // The contract's MCP routes are still there beside the endpoint.
    assert.equal((await postPath(server, '/mcp/init', {})).status, 200);
  });
});

describe('the MCP endpoint with MCP off ("mcp": false)', () => {
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

  test('/mcp is 404 for every method, and an MCP client cannot connect', async () => {
    assert.equal((await rpc(server, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}')).status, 404);
    assert.equal((await fetch(`${server.url}/mcp`)).status, 404);
    assert.equal((await fetch(`${server.url}/mcp`, { method: 'DELETE' })).status, 404);
    const client = new Client({ name: 'trellis-test', version: '1.0.0' });
    await assert.rejects(client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`))), (err: unknown) => {
      assert.equal((err as { code?: number }).code, 404);
      return true;
    });
  });
});

describe('the MCP endpoint of a project without node or edge types', () => {
  const dir = tempDir();
  const project = tempDir();
  let server: TestServer;
  before(async () => {
    writeFileSync(join(project.path, 'trellis.json'), '{"mcp": true}');
    writeFileSync(join(project.path, 'q.hx'), 'V::Doc { topic: String }\n\n#[mcp]\nQUERY hello() =>\n    RETURN "hi"\n');
    server = await startTestServer(['--data', dir.path, '--project', project.path]);
  });
  after(async () => {
    await server.stop();
    dir.remove();
    project.remove();
  });

  test('a query with no statements answers; counts are empty (vectors are not counted); the schema lists the vector type', async () => {
    const client = await connect(server);
    try {
      assert.equal(text(await client.callTool({ name: 'hello' })), '{"data":"hi"}');
      assert.deepEqual((await client.callTool({ name: 'trellis_counts' })).structuredContent, { nodes: {}, edges: {} });
      const schema = (await client.callTool({ name: 'trellis_schema' })).structuredContent as { vectors: unknown };
      assert.deepEqual(schema.vectors, [{ name: 'Doc', fields: [{ name: 'topic', type: 'String' }] }]);
    } finally {
      await client.close();
    }
  });
});
