/**
 * Embed(text) (issue 27 item 3): the texts of a call are turned into vectors by the
 * project's embedding provider, an OpenAI-compatible `/v1/embeddings` API, before the
 * call runs. A real local HTTP server speaks the protocol here; a provider that is down,
 * slow or answers garbage is 502 embedding_provider_error, and nothing of the query runs.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { postPath, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { loadProject } from '../../src/hql/project.js';

type Obj = Record<string, unknown>;

/** What the provider does with the next requests. */
type Mode = 'ok' | 'error' | 'garbage' | 'slow' | 'short' | 'nan';

interface Provider {
  readonly server: Server;
  readonly port: number;
  mode: Mode;
  readonly requests: { path: string; auth: string | undefined; body: { model: string; input: string[] } }[];
}

/** A tiny vector of a text: which of cat / dog / fish it mentions. */
function embedding(text: string): number[] {
  return [text.includes('cat') ? 1 : 0, text.includes('dog') ? 1 : 0, text.includes('fish') ? 1 : 0.01];
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function startProvider(): Promise<Provider> {
  const p = { mode: 'ok' as Mode, requests: [] as Provider['requests'] } as Provider & { server: Server; port: number };
  const server = createServer((req, res) => {
    void readBody(req).then((text) => {
      const body = JSON.parse(text) as { model: string; input: string[] };
      p.requests.push({ path: req.url ?? '', auth: req.headers.authorization, body });
      const send = (status: number, payload: string) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(payload);
      };
      switch (p.mode) {
        case 'error':
          return send(500, '{"error":{"message":"model is loading"}}');
        case 'garbage':
          return send(200, '<html>not json</html>');
        case 'slow':
          return; // never answers
        case 'short':
          return send(200, JSON.stringify({ data: [] }));
        case 'nan':
          return send(200, JSON.stringify({ data: body.input.map((_, index) => ({ index, embedding: ['x'] })) }));
        case 'ok': {
          // Answered in reverse order with their indexes, as the protocol allows.
          const data = body.input.map((t, index) => ({ object: 'embedding', index, embedding: embedding(t) })).reverse();
          return send(200, JSON.stringify({ object: 'list', data, model: body.model }));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  Object.assign(p, { server, port: (server.address() as { port: number }).port });
  return p;
}

const SCHEMA = `
V::Note { text: String }
`;
const QUERIES = `
QUERY remember(text: String) =>
    note <- AddV<Note>(Embed(text), {text: text})
    RETURN note

QUERY rememberAll(items: [{text: String}]) =>
    FOR {text} IN items {
        note <- AddV<Note>(Embed(text), {text: text})
    }
    RETURN "ok"

QUERY rememberTexts(texts: [String]) =>
    FOR t IN texts {
        note <- AddV<Note>(Embed(t), {text: t})
    }
    RETURN "ok"

QUERY recall(q: String) =>
    notes <- SearchV<Note>(Embed(q), 2)
    RETURN notes::{text}

QUERY recallFish() =>
    notes <- SearchV<Note>(Embed("fish"), 1)
    RETURN notes::{text}

#[model("other-model")]
QUERY recallOther(q: String) =>
    notes <- SearchV<Note>(Embed(q), 1)
    RETURN notes::{text}

QUERY keep(text: String) =>
    existing <- V<Note>::WHERE(_::{text}::EQ(text))
    note <- existing::UpsertV(Embed(text), {text: text})
    RETURN note

QUERY count() =>
    n <- V<Note>::COUNT
    RETURN n
`;

function writeProject(dir: string, embedding: unknown): string {
  const project = join(dir, 'project');
  mkdirSync(project, { recursive: true });
  writeFileSync(join(project, 'schema.hx'), SCHEMA);
  writeFileSync(join(project, 'queries.hx'), QUERIES);
  writeFileSync(join(project, 'trellis.json'), JSON.stringify({ embedding }));
  return project;
}

describe('Embed() with an OpenAI-compatible provider', () => {
  const dir = tempDir();
  let provider: Provider;
  let server: TestServer;
  const call = (name: string, params: unknown = {}) => postPath(server, `/${name}`, params);
  async function ok(name: string, params: unknown = {}): Promise<Obj> {
    const answer = await call(name, params);
    assert.equal(answer.status, 200, `${name}: ${JSON.stringify(answer.body)}`);
    return answer.body as Obj;
  }

  before(async () => {
    provider = await startProvider();
    process.env.TRELLIS_TEST_EMBEDDING_KEY = 'sk-test-123';
    const project = writeProject(dir.path, {
      url: `http://127.0.0.1:${provider.port}/v1`,
      model: 'test-model',
      dimensions: 3,
      api_key_env: 'TRELLIS_TEST_EMBEDDING_KEY',
      // Bounded but roomy: a loaded machine must not make the first (connecting) call time out.
      timeout_ms: 3000,
    });
    server = await startTestServer(['--data', join(dir.path, 'data'), '--project', project]);
  });
  after(async () => {
    await server.stop();
    provider.server.closeAllConnections();
    provider.server.close();
    dir.remove();
  });

  test('AddV(Embed(text)): the text is embedded by the configured model, with the key, at <url>/embeddings', async () => {
    provider.requests.length = 0;
    const note = (await ok('remember', { text: 'my cat sleeps' })).note as Obj;
    assert.equal(note.text, 'my cat sleeps');
    assert.equal(provider.requests.length, 1);
    assert.deepEqual(provider.requests[0], {
      path: '/v1/embeddings',
      auth: 'Bearer sk-test-123',
      body: { model: 'test-model', input: ['my cat sleeps'] },
    });
  });

  test('one query embedding several texts sends them in one request (FOR loop)', async () => {
    provider.requests.length = 0;
    await ok('rememberAll', { items: [{ text: 'a dog barks' }, { text: 'a fish swims' }] });
    assert.equal(provider.requests.length, 1);
    assert.deepEqual(provider.requests[0]!.body.input, ['a dog barks', 'a fish swims']);
    assert.deepEqual(await ok('count'), { n: 3 });
  });

  test('SearchV(Embed(q)): the nearest notes to the embedded text', async () => {
    assert.deepEqual((await ok('recall', { q: 'where is the dog' })).notes, ['a dog barks', 'a fish swims']);
    assert.deepEqual((await ok('recallFish')).notes, ['a fish swims']);
  });

  test('#[model("...")] overrides the model for its query', async () => {
    provider.requests.length = 0;
    await ok('recallOther', { q: 'cat' });
    assert.equal(provider.requests[0]!.body.model, 'other-model');
  });

  test('UpsertV(Embed(text), ...) embeds and makes the note when missing, updates it when found', async () => {
    const made = (await ok('keep', { text: 'a cat and a dog' })).note as Obj;
    const again = (await ok('keep', { text: 'a cat and a dog' })).note as Obj;
    assert.equal(again.id, made.id);
  });

  for (const [mode, cause] of [
    ['error', /answered HTTP 500: .*model is loading/],
    ['garbage', /answered something that is not JSON/],
    ['slow', /did not answer within 3000 ms/],
    ['short', /answered 0 embeddings for 1 texts/],
    ['nan', /is not a list of numbers/],
  ] as const) {
    test(`a provider that ${mode === 'slow' ? 'is too slow' : `answers ${mode}`} is 502 embedding_provider_error, and nothing is written`, async () => {
      const before = (await ok('count')).n;
      provider.mode = mode;
      try {
        const answer = await call('remember', { text: 'lost cat' });
        assert.equal(answer.status, 502, JSON.stringify(answer.body));
        const body = answer.body as Obj;
        assert.equal(body.error, 'embedding_provider_error');
        assert.match(body.msg as string, new RegExp(`127\\.0\\.0\\.1:${provider.port}/v1/embeddings`));
        assert.match(body.msg as string, cause);
      } finally {
        provider.mode = 'ok';
      }
      assert.equal((await ok('count')).n, before);
    });
  }

  test('bad parameters are refused before the provider is asked', async () => {
    provider.requests.length = 0;
    const answer = await call('remember', { text: 5 });
    assert.equal(answer.status, 400);
    assert.equal((answer.body as Obj).error, 'invalid_parameter');
    assert.equal(provider.requests.length, 0);
  });

  test('Embed(t) in a FOR over an array of strings embeds each, in one request (found failing in a real project)', async () => {
    provider.requests.length = 0;
    const before = (await ok('count')).n as number;
    await ok('rememberTexts', { texts: ['a cat naps', 'a dog digs'] });
    assert.equal(provider.requests.length, 1);
    assert.deepEqual(provider.requests[0]!.body.input, ['a cat naps', 'a dog digs']);
    assert.equal((await ok('count')).n, before + 2);
  });
});

test('a provider that is down is 502 embedding_provider_error naming the cause', async () => {
  const dir = tempDir();
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const project = writeProject(dir.path, { url: `http://127.0.0.1:${port}/v1`, model: 'm' });
  const server = await startTestServer(['--data', join(dir.path, 'data'), '--project', project]);
  try {
    const answer = await postPath(server, '/remember', { text: 'x' });
    assert.equal(answer.status, 502);
    assert.equal((answer.body as Obj).error, 'embedding_provider_error');
    assert.match((answer.body as Obj).msg as string, /could not be reached \(ECONNREFUSED/);
  } finally {
    await server.stop();
    dir.remove();
  }
});

test("a project using Embed() without an embedding provider takes HelixDB's default, says so, and a call without its key is a 502 that runs nothing", async () => {
  const dir = tempDir();
  try {
    const project = writeProject(dir.path, undefined);
    writeFileSync(join(project, 'trellis.json'), '{}');
    const loaded = loadProject(project, { mcp: false });
    assert.equal(loaded.ok, true);
    if (!loaded.ok) return;
    assert.deepEqual(loaded.project.config.embedding, {
      url: 'https://api.openai.com/v1',
      model: 'text-embedding-ada-002',
      api_key_env: 'OPENAI_API_KEY',
    });
    assert.equal(loaded.project.notices.length, 1);
    assert.match(
      loaded.project.notices[0]!,
      /^remember, rememberAll, rememberTexts, recall, recallFish, recallOther, keep call Embed\(\) and the project names no embedding provider: HelixDB's default is used, text-embedding-ada-002 at https:\/\/api\.openai\.com\/v1 with the key in OPENAI_API_KEY/,
    );
    const server = await startTestServer(['--data', join(dir.path, 'data'), '--project', project]);
    try {
      assert.match(server.output(), /HelixDB's default is used, text-embedding-ada-002/);
      const answer = await postPath(server, '/remember', { text: 'x' });
      assert.equal(answer.status, 502);
      assert.equal((answer.body as Obj).error, 'embedding_provider_error');
      // No key here (and no network to OpenAI either): the msg names the provider and the cause.
      const msg = (answer.body as Obj).msg as string;
      assert.match(msg, /^the embedding provider https:\/\/api\.openai\.com\/v1\/embeddings \(model "text-embedding-ada-002"\)/);
      if (!process.env.OPENAI_API_KEY) assert.match(msg, /needs an API key in the environment variable OPENAI_API_KEY, which is not set/);
      const count = await postPath(server, '/count', {});
      assert.deepEqual(count.body, { n: 0 });
    } finally {
      await server.stop();
    }
  } finally {
    dir.remove();
  }
});
