/**
 * Index DDL, operations and secondary indexes through the embedded API (real LMDB): the
 * receipts and statuses of reference §5.10, builds in the writer's background, unique
 * violations that roll the batch back, builds blocked by a row and retried, drops and
 * aborts, a restart in the middle of a build, and scans that read an index: same answers
 * as without one, fewer records read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preparePlan } from '../../src/database.js';
import { executePlan } from '../../src/exec/batch.js';
import type { GraphReader } from '../../src/store/types.js';
import { open } from '../../src/index.js';
import { openTestDb, q, rejects400, s, i, type TestDb } from '../helpers/embedded.js';
import { tempDir } from '../helpers/server.js';

const spec = (kind: string, fields: Record<string, unknown>) => ({ [kind]: fields });
const create = (sp: unknown, ifNotExists = false) => q('r', { create_index: { spec: sp, if_not_exists: ifNotExists } });
const op = (kind: string, id: string) => q('r', { [kind]: { operation_id: id } });

async function ddl(t: TestDb, entry: unknown): Promise<Record<string, any>> {
  return (await t.write([entry], ['r'])).r;
}

/** Polls get_index_operation until the status is one of `until` (the SDKs' flow). */
async function poll(t: TestDb, id: string, until = ['succeeded']): Promise<Record<string, any>> {
  for (let n = 0; n < 500; n++) {
    const status = (await t.read([op('get_index_operation', id)], ['r'])).r;
    if (until.includes(status.status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`operation ${id} did not reach ${until.join('/')}`);
}

async function users(t: TestDb, rows: { email?: string; age?: number }[]): Promise<void> {
  const entries = rows.map((r, n) =>
    q(`u${n}`, {
      add_n: {
        label: 'User',
        properties: [...(r.email === undefined ? [] : [['email', s(r.email)]]), ...(r.age === undefined ? [] : [['age', i(r.age)]])],
      },
    }),
  );
  await t.write(entries, []);
}

const where = (...preds: unknown[]) => ({
  nodes_where: {
    predicate: { and: { predicates: [{ eq: { left: { property: '$label' }, right: { constant: { string: 'User' } } } }, ...preds] } },
  },
});
const cmp = (opName: string, property: string, value: unknown) => ({ [opName]: { left: { property }, right: { constant: value } } });
const idsOf = (rows: { $id: number }[]) => rows.map((r) => r.$id);

const EMAIL = spec('node_equality', { label: 'User', property: 'email', unique: true });
const AGE = spec('node_range', { label: 'User', property: 'age' });

test('create_index answers accepted, then already_active; polling reaches succeeded with progress', async () => {
  const t = await openTestDb();
  try {
    await users(t, [{ email: 'a@x' }, { email: 'b@x' }, { email: 'c@x' }]);
    const receipt = await ddl(t, create(EMAIL));
    assert.equal(receipt.kind, 'accepted');
    assert.match(receipt.operation_id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(typeof receipt.index_id, 'string');
    assert.equal(typeof receipt.generation, 'string');
    const status = await poll(t, receipt.operation_id);
    assert.deepEqual(
      { ...status, progress: { ...status.progress } },
      {
        status: 'succeeded',
        operation_id: receipt.operation_id,
        index_id: receipt.index_id,
        generation: receipt.generation,
        operation_kind: 'build',
        family: 'secondary',
        stage: 'finalize',
        attempt: 0,
        progress: { entities: '3', input_bytes: '9', output_operations: '3', output_bytes: '0' },
      },
    );
    assert.deepEqual(await ddl(t, create(EMAIL, true)), {
      kind: 'already_active',
      index_id: receipt.index_id,
      generation: receipt.generation,
    });
    await rejects400(t.write([create(EMAIL)], ['r']), 'index_already_exists', /User\.email/);
    const other = spec('node_equality', { label: 'User', property: 'email', unique: false });
    await rejects400(t.write([create(other, true)], ['r']), 'index_definition_conflict', /another definition/);
  } finally {
    await t.close();
  }
});

test('operation ids: a malformed or nil UUID is 400 invalid_index_operation_id, an unknown one index_operation_not_found', async () => {
  const t = await openTestDb();
  try {
    for (const bad of ['nope', '00000000-0000-0000-0000-000000000000', '2A99EFDA-EE64-4E0A-8D14-3F46BAA62D54']) {
      await rejects400(t.read([op('get_index_operation', bad)], ['r']), 'invalid_index_operation_id', /operation_id/);
    }
    const unknown = '018f0c58-6bc7-7c56-8d3d-9c5f18a0f001';
    await rejects400(t.read([op('get_index_operation', unknown)], ['r']), 'index_operation_not_found', new RegExp(unknown));
    await rejects400(t.write([op('retry_index_operation', unknown)], ['r']), 'index_operation_not_found', new RegExp(unknown));
    await rejects400(t.read([create(EMAIL)], ['r']), 'mutation_in_read_batch', /./);
  } finally {
    await t.close();
  }
});

test('a unique index refuses a second holder of a value: 400 naming both, and nothing of the batch commits', async () => {
  const t = await openTestDb();
  try {
    await users(t, [{ email: 'a@x' }]);
    await poll(t, (await ddl(t, create(EMAIL))).operation_id);
    const before = (await t.read([q('n', { count: { input: { nodes: { reference: 'all' } } } })], ['n'])).n;
    await rejects400(
      t.write(
        [
          q('ok', { add_n: { label: 'User', properties: [['email', s('new@x')]] } }),
          q('dup', { add_n: { label: 'User', properties: [['email', s('a@x')]] } }),
        ],
        [],
      ),
      'unique_constraint_violation',
      /User\.email.*"a@x".*node 0/,
    );
    const after = (await t.read([q('n', { count: { input: { nodes: { reference: 'all' } } } })], ['n'])).n;
    assert.deepEqual(after, before, 'the first add_n of the failed batch did not commit');
    // Changing the holder's value frees the old one; the same node keeping its value is no violation.
    await t.write([q('x', { set_property: { input: { nodes: { reference: { ids: [0] } } }, name: 'email', value: s('z@x') } })], []);
    await t.write([q('x', { set_property: { input: { nodes: { reference: { ids: [0] } } }, name: 'email', value: s('z@x') } })], []);
    await t.write([q('y', { add_n: { label: 'User', properties: [['email', s('a@x')]] } })], []);
    // Integers and floats of one value are one value.
    await t.write([q('z', { add_n: { label: 'User', properties: [['email', i(7)]] } })], []);
    await rejects400(
      t.write([q('z', { add_n: { label: 'User', properties: [['email', { value: { f64: 7 } }]] } })], []),
      'unique_constraint_violation',
      /email = 7/,
    );
  } finally {
    await t.close();
  }
});

test('a build that meets duplicate rows is blocked naming the row; retried after the fix it succeeds', async () => {
  const t = await openTestDb();
  try {
    await users(t, [{ email: 'a@x' }, { email: 'b@x' }, { email: 'a@x' }]);
    const receipt = await ddl(t, create(EMAIL));
    const blocked = await poll(t, receipt.operation_id, ['blocked']);
    assert.equal(blocked.blocker_code, 'uniqueness_violation');
    assert.match(blocked.message, /node 2: .*node 0 already has/);
    assert.deepEqual(await ddl(t, create(EMAIL, true)), { kind: 'existing_operation', operation_id: receipt.operation_id });
    // A blocked build is not used by queries.
    const rows = (await t.read([q('x', where(cmp('eq', 'email', { string: 'a@x' })))], ['x'])).x;
    assert.deepEqual(idsOf(rows), [0, 2]);
    await t.write([q('x', { drop: { input: { nodes: { reference: { ids: [2] } } } } })], []);
    const retried = await ddl(t, op('retry_index_operation', receipt.operation_id));
    assert.equal(retried.attempt, 1);
    const done = await poll(t, receipt.operation_id);
    assert.equal(done.status, 'succeeded');
    assert.equal(done.blocker_code, undefined);
  } finally {
    await t.close();
  }
});

test('drop_index: a receipt, the index stops serving at once, the drop succeeds, and the index can be made again', async () => {
  const t = await openTestDb();
  try {
    await users(t, [{ email: 'a@x' }, { email: 'b@x' }]);
    await poll(t, (await ddl(t, create(EMAIL))).operation_id);
    const drop = await ddl(t, q('r', { drop_index: { spec: EMAIL } }));
    assert.equal(drop.kind, 'accepted');
    const status = await poll(t, drop.operation_id);
    assert.equal(status.operation_kind, 'drop');
    // Without the index, duplicates are allowed again.
    await users(t, [{ email: 'a@x' }]);
    await rejects400(t.write([q('r', { drop_index: { spec: EMAIL } })], ['r']), 'index_not_found', /User\.email/);
    const again = await ddl(t, create(EMAIL));
    const blocked = await poll(t, again.operation_id, ['blocked']);
    assert.equal(blocked.blocker_code, 'uniqueness_violation');
  } finally {
    await t.close();
  }
});

test('abort_index_operation: a blocked build ends aborted and its index is gone; a finished one is not abortable', async () => {
  const t = await openTestDb();
  try {
    await users(t, [{ email: 'a@x' }, { email: 'a@x' }]);
    const receipt = await ddl(t, create(EMAIL));
    await poll(t, receipt.operation_id, ['blocked']);
    const aborted = await ddl(t, op('abort_index_operation', receipt.operation_id));
    assert.equal(aborted.status, 'aborted');
    // Once the cleanup has run, the identity is free: a new create is accepted.
    let created: Record<string, any> | null = null;
    for (let n = 0; n < 200 && created === null; n++) {
      try {
        created = await ddl(t, create(spec('node_equality', { label: 'User', property: 'email', unique: false })));
      } catch (err) {
        if ((err as { code?: string }).code !== 'index_busy') throw err;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    assert.equal(created?.kind, 'accepted');
    await poll(t, created!.operation_id);
    await rejects400(t.write([op('abort_index_operation', created!.operation_id)], ['r']), 'index_operation_not_abortable', /succeeded/);
  } finally {
    await t.close();
  }
});

/** Runs a read request on the store through a reader that counts calls. */
function countedRead(db: Awaited<ReturnType<typeof open>>, request: object): { body: Record<string, any>; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const plan = preparePlan(request);
  const text = db.store.read((reader) => {
    const counting = new Proxy(reader, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          calls.set(String(name), (calls.get(String(name)) ?? 0) + 1);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as GraphReader;
    return executePlan(plan, counting, null, { timeoutMs: 10_000 });
  });
  return { body: JSON.parse(text), calls };
}

test('scans read equality and range indexes: the same rows as a scan without one, from the index', async () => {
  const dir = tempDir('trellis-index-scan-');
  const db = await open(dir.path);
  const t: TestDb = {
    db,
    read: (entries, returns, parameters) =>
      db.query({ request_type: 'read', query: { read: { entries, returns } }, ...(parameters ? { parameters } : {}) }) as Promise<any>,
    write: (entries, returns, parameters) =>
      db.query({ request_type: 'write', query: { write: { entries, returns } }, ...(parameters ? { parameters } : {}) }) as Promise<any>,
    close: async () => {
      await db.close();
      dir.remove();
    },
  };
  try {
    const rows = Array.from({ length: 3000 }, (_, n) => ({ email: `u${n}@x`, age: n % 90 }));
    for (let n = 0; n < rows.length; n += 500) await users(t, rows.slice(n, n + 500));
    const queries = [
      where(cmp('eq', 'email', { string: 'u1234@x' })),
      where(cmp('eq', 'age', { i64: 42 })),
      where(cmp('gte', 'age', { i64: 88 })),
      where(cmp('gt', 'age', { i64: 10 }), cmp('lt', 'age', { i64: 12 })),
      where(cmp('lte', 'age', { i64: 0 }), cmp('eq', 'email', { string: 'u90@x' })),
    ];
    const request = (root: unknown) => ({
      request_type: 'read',
      query: { read: { entries: [q('x', { id: { input: root } }), q('n', { count: { input: root } })], returns: ['x', 'n'] } },
    });
    const before = queries.map((root) => countedRead(db, request(root)));
    await poll(t, (await ddl(t, create(EMAIL))).operation_id);
    await poll(t, (await ddl(t, create(AGE))).operation_id);
    const after = queries.map((root) => countedRead(db, request(root)));
    for (let n = 0; n < queries.length; n++) {
      assert.deepEqual(after[n]!.body, before[n]!.body, `query ${n}: same answer with the index`);
      assert.equal(before[n]!.calls.get('secondaryEqual') ?? 0, 0);
      const used = (after[n]!.calls.get('secondaryEqual') ?? 0) + (after[n]!.calls.get('secondaryRange') ?? 0);
      assert.ok(used > 0, `query ${n} read an index`);
      assert.equal(after[n]!.calls.get('nodeColumns') ?? 0, 0, `query ${n} scanned no columns`);
    }
    assert.deepEqual(after[0]!.body, { x: [1234], n: [1] });
    assert.equal(after[2]!.body.n[0], rows.filter((r) => r.age >= 88).length);
    // A parameter works as a constant does.
    const byParam = countedRead(db, {
      request_type: 'read',
      query: {
        read: {
          entries: [q('x', { id: { input: where({ eq: { left: { property: 'email' }, right: { param: 'e' } } }) } })],
          returns: ['x'],
        },
      },
      parameters: { e: 'u7@x' },
    });
    assert.deepEqual(byParam.body, { x: [7] });
    assert.ok((byParam.calls.get('secondaryEqual') ?? 0) > 0);
    // Writes keep the index current: a changed value moves, a dropped node leaves.
    await t.write([q('x', { set_property: { input: { nodes: { reference: { ids: [1234] } } }, name: 'email', value: s('moved@x') } })], []);
    await t.write([q('x', { drop: { input: { nodes: { reference: { ids: [7] } } } } })], []);
    assert.deepEqual(countedRead(db, request(queries[0])).body, { x: [], n: [0] });
    assert.deepEqual(countedRead(db, request(where(cmp('eq', 'email', { string: 'moved@x' })))).body, { x: [1234], n: [1] });
    assert.deepEqual(countedRead(db, request(where(cmp('eq', 'email', { string: 'u7@x' })))).body, { x: [], n: [0] });
  } finally {
    await t.close();
  }
});

test('a build interrupted by closing the database resumes when it opens again', async () => {
  const dir = tempDir('trellis-index-resume-');
  try {
    let db = await open(dir.path);
    const w = (entries: unknown[], returns: string[]) => db.query({ request_type: 'write', query: { write: { entries, returns } } });
    for (let n = 0; n < 40; n++) {
      await w(
        Array.from({ length: 500 }, (_, k) => q(`n${k}`, { add_n: { label: 'User', properties: [['age', i(n * 500 + k)]] } })),
        [],
      );
    }
    const receipt = ((await w([create(AGE)], ['r'])) as Record<string, any>).r;
    const status0 = () =>
      db.query({ request_type: 'read', query: { read: { entries: [op('get_index_operation', receipt.operation_id)], returns: ['r'] } } });
    // Close in the middle: once the scan has indexed some rows and not all.
    for (let n = 0; n < 100_000; n++) {
      const s0 = ((await status0()) as Record<string, any>).r;
      if (s0.progress.entities !== '0') break;
      await new Promise((resolve) => setImmediate(resolve));
    }
    await db.close();
    db = await open(dir.path);
    const read = (id: string) =>
      db.query({ request_type: 'read', query: { read: { entries: [op('get_index_operation', id)], returns: ['r'] } } });
    const first = ((await read(receipt.operation_id)) as Record<string, any>).r;
    assert.notEqual(first.status, 'succeeded', 'the build had not finished when the database closed');
    assert.notEqual(first.progress.entities, '0', 'the build had started when the database closed');
    let status = first;
    for (let n = 0; n < 1000 && status.status !== 'succeeded'; n++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      status = ((await read(receipt.operation_id)) as Record<string, any>).r;
    }
    assert.equal(status.status, 'succeeded');
    assert.equal(status.progress.entities, '20000');
    await db.close();
  } finally {
    dir.remove();
  }
});

test('edge indexes: edges_where reads an edge equality index, and edge text search ranks edges', async () => {
  const dir = tempDir('trellis-edge-index-');
  const db = await open(dir.path);
  const t: TestDb = {
    db,
    read: (entries, returns) => db.query({ request_type: 'read', query: { read: { entries, returns } } }) as Promise<any>,
    write: (entries, returns) => db.query({ request_type: 'write', query: { write: { entries, returns } } }) as Promise<any>,
    close: async () => {
      await db.close();
      dir.remove();
    },
  };
  try {
    await t.write([q('a', { add_n: { label: 'P', properties: [] } }), q('b', { add_n: { label: 'P', properties: [] } })], []);
    const edges = Array.from({ length: 40 }, (_, n) =>
      q(`e${n}`, {
        add_e: {
          input: { nodes: { reference: { ids: [n % 2] } } },
          label: 'K',
          to: { ids: [1 - (n % 2)] },
          properties: [
            ['since', i(n % 10)],
            ['note', s(n % 4 === 0 ? 'met at the graph conference' : 'old friends')],
          ],
        },
      }),
    );
    await t.write(edges, []);
    const byLabel = { eq: { left: { property: '$label' }, right: { constant: { string: 'K' } } } };
    const request = {
      request_type: 'read',
      query: {
        read: {
          entries: [
            q('x', { id: { input: { edges_where: { predicate: { and: { predicates: [byLabel, cmp('eq', 'since', { i64: 3 })] } } } } } }),
          ],
          returns: ['x'],
        },
      },
    };
    const before = countedRead(db, request);
    await poll(t, (await ddl(t, create(spec('edge_equality', { label: 'K', property: 'since' })))).operation_id);
    const after = countedRead(db, request);
    assert.deepEqual(after.body, before.body);
    assert.deepEqual(after.body, { x: [3, 13, 23, 33] });
    assert.ok((after.calls.get('secondaryEqual') ?? 0) > 0, 'the edge index was read');
    assert.equal(after.calls.get('edgeIdsByLabel') ?? 0, 0, 'no edge of the label was scanned');
    await poll(t, (await ddl(t, create(spec('edge_text', { label: 'K', property: 'note' })))).operation_id);
    const hits = (
      await t.read(
        [
          q('h', {
            text_search_edges: { label: 'K', property: 'note', query_text: { value: { string: 'conference' } }, k: { literal: 20 } },
          }),
        ],
        ['h'],
      )
    ).h;
    assert.deepEqual(
      hits.map((r: { $id: number }) => r.$id),
      [0, 4, 8, 12, 16, 20, 24, 28, 32, 36],
    );
    assert.ok(hits.every((r: { $score: number }) => r.$score > 0));
  } finally {
    await t.close();
  }
});

test('list_indexes: every index in id order with its definition, state, generation and current operation, in read batches', async () => {
  const t = await openTestDb();
  try {
    const list = async () => (await t.read([q('r', { list_indexes: {} })], ['r'])).r as Record<string, any>[];
    assert.deepEqual(await list(), []);
    await users(t, [{ email: 'a@x', age: 3 }]);
    const email = await ddl(t, create(EMAIL));
    await poll(t, email.operation_id);
    const vector = spec('node_vector', { label: 'Doc', property: 'v', dimension: 3, metric: 'cosine' });
    const built = await ddl(t, create(vector));
    await poll(t, built.operation_id);
    const [first, second] = await list();
    assert.deepEqual(
      { ...first, operation: undefined },
      {
        index_id: email.index_id,
        kind: 'node_equality',
        label: 'User',
        property: 'email',
        unique: true,
        state: 'active',
        generation: email.generation,
        operation: undefined,
      },
    );
    assert.equal(first!.operation.operation_id, email.operation_id);
    assert.equal(first!.operation.status, 'succeeded');
    assert.equal(first!.operation.family, 'secondary');
    assert.deepEqual(
      [second!.kind, second!.dimension, second!.metric, second!.state, second!.operation.family],
      ['node_vector', 3, 'cosine', 'active', 'vector'],
    );
    assert.equal(second!.tenant_property, undefined, 'an unset tenant property is left out');
    const drop = await ddl(t, q('r', { drop_index: { spec: EMAIL } }));
    await poll(t, drop.operation_id);
    assert.deepEqual(
      (await list()).map((ix) => ix.kind),
      ['node_vector'],
      'a dropped index is gone once its drop succeeded',
    );
    await rejects400(
      t.read([q('r', { list_indexes: { label: 'User' } })], ['r']),
      'invalid_query_json',
      /unknown key "label" \(expected no keys\)/,
    );
  } finally {
    await t.close();
  }
});
