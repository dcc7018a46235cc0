/**
 * The per-iteration cost of a read `for_each` (issue 9): one read request whose batch is a
 * `for_each` over a parameter array of N rows (100,000 by default), whose body is one query
 * entry over a small label scan, on a database that holds many other nodes too.
 *
 *   node dist/bench/for-each.js [--rows N] [--nodes N] [--items N] [--repeat N] [--only sort_range,...]
 *
 * The database holds `--nodes` nodes (10,000), of which `--items` (50) have the label
 * `Item`, spread evenly over the id range (every block of 1024 ids mixes labels). Each
 * variation's request text is built once; what is timed is `db.queryText` of it: parsing,
 * validation and the N iterations. Prints one JSON object on stdout (per variation: rows,
 * median ms, µs per iteration, every run's ms); progress goes to stderr.
 *
 * Answers are checked before timing: the full request's result (the body's last iteration)
 * and, since a read loop only returns its last iteration, requests over the first k rows
 * for k = 1..40, whose last rows differ from the rows before them.
 */
import { deepEqual } from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open, type Database } from '../src/index.js';
import { machine, positiveInt, progress, runBench } from './lib/cli.js';
import { median, round } from './lib/stats.js';
import { parseArgs } from 'node:util';

interface Item {
  readonly id: number;
  readonly rank: number;
  readonly price: number;
  readonly group: number;
  readonly name: string;
}

interface Row {
  readonly i: number;
  readonly min: number;
  readonly g: number;
  readonly id: number;
}

interface Variation {
  /** The loop body's one query (its root). */
  readonly root: object;
  /** The body's result for one row, as `db.query` returns it. */
  expected(row: Row): unknown[];
}

const label = (l: string) => ({ nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: l } } } } } });
const items = label('Item');

function variations(all: readonly Item[]): Record<string, Variation> {
  const byId = new Map(all.map((it) => [it.id, it]));
  const sorted = (list: readonly Item[], key: (it: Item) => number, desc: boolean) =>
    [...list].sort((a, b) => (desc ? key(b) - key(a) : key(a) - key(b)) || a.id - b.id);
  return {
    // Next to nothing per iteration: what parsing the request and running the loop cost.
    floor: {
      root: { count: { input: { nodes: { reference: { ids: [] } } } } },
      expected: () => [0],
    },
    // A label scan sorted by a property, first page.
    sort_range: {
      root: {
        range: { input: { order_by: { input: items, property: 'price', order: 'desc' } }, start: { literal: 0 }, end: { literal: 10 } },
      },
      expected: () =>
        sorted(all, (it) => it.price, true)
          .slice(0, 10)
          .map((it) => ({ $id: it.id })),
    },
    // The whole scan sorted, no bound: the generic sort.
    sort_all: {
      root: { id: { input: { order_by: { input: items, property: 'rank', order: 'asc' } } } },
      expected: () => sorted(all, (it) => it.rank, false).map((it) => it.id),
    },
    // A filter comparing a property with the row's parameter, then sort and page.
    filter_param: {
      root: {
        range: {
          input: {
            order_by: {
              input: {
                nodes_where: {
                  predicate: {
                    and: {
                      predicates: [
                        { eq: { left: { property: '$label' }, right: { constant: { string: 'Item' } } } },
                        { gte: { left: { property: 'rank' }, right: { param: 'min' } } },
                      ],
                    },
                  },
                },
              },
              property: 'price',
              order: 'asc',
            },
          },
          start: { literal: 0 },
          end: { literal: 5 },
        },
      },
      expected: (row) =>
        sorted(
          all.filter((it) => it.rank >= row.min),
          (it) => it.price,
          false,
        )
          .slice(0, 5)
          .map((it) => ({ $id: it.id })),
    },
    // A projection of a filtered, sorted scan (`where` over the scan, the row's group).
    value_map: {
      root: {
        value_map: {
          properties: ['name', 'price'],
          input: {
            limit: {
              count: { literal: 3 },
              input: {
                order_by: {
                  input: { where: { input: items, predicate: { eq: { left: { property: 'group' }, right: { param: 'g' } } } } },
                  property: 'rank',
                  order: 'asc',
                },
              },
            },
          },
        },
      },
      expected: (row) =>
        sorted(
          all.filter((it) => it.group === row.g),
          (it) => it.rank,
          false,
        )
          .slice(0, 3)
          .map((it) => ({ name: it.name, price: it.price })),
    },
    // An id lookup instead of a scan.
    id_lookup: {
      root: { value_map: { properties: ['name', 'rank'], input: { nodes: { reference: { param: 'id' } } } } },
      expected: (row) => {
        const it = byId.get(row.id)!;
        return [{ name: it.name, rank: it.rank }];
      },
    },
  };
}

function request(root: object, rows: readonly Row[]): string {
  return JSON.stringify({
    request_type: 'read',
    query: { read: { entries: [{ for_each: { param: 'rows', body: [{ query: { name: 'r', root } }] } }], returns: ['r'] } },
    parameters: { rows },
  });
}

/** Loads `nodes` nodes, `items` of them Items spread evenly; the rest are Other. */
async function load(db: Database, nodes: number, count: number): Promise<Item[]> {
  const stride = Math.floor(nodes / count);
  const all: Item[] = [];
  const others: { rank: number; name: string }[] = [];
  const entries: object[] = [];
  const parameters: Record<string, unknown> = {};
  const flushOthers = () => {
    if (others.length === 0) return;
    const name = `o${entries.length}`;
    parameters[name] = others.splice(0);
    entries.push({
      for_each: {
        param: name,
        body: [
          {
            query: {
              root: {
                add_n: {
                  label: 'Other',
                  properties: [
                    ['rank', { expr: { param: 'rank' } }],
                    ['name', { expr: { param: 'name' } }],
                  ],
                },
              },
            },
          },
        ],
      },
    });
  };
  for (let id = 0; id < nodes; id++) {
    const k = all.length;
    if (id % stride === stride - 1 && k < count) {
      flushOthers();
      // Deterministic, distinct ranks and prices that do not follow id order.
      const item: Item = { id, rank: (k * 37) % count, price: ((k * 7919) % 1000) / 4, group: k % 5, name: `item-${k}` };
      all.push(item);
      entries.push({
        query: {
          root: {
            add_n: {
              label: 'Item',
              properties: [
                ['rank', { value: { i64: item.rank } }],
                ['price', { value: { f64: item.price } }],
                ['group', { value: { i64: item.group } }],
                ['name', { value: { string: item.name } }],
              ],
            },
          },
        },
      });
    } else {
      others.push({ rank: id, name: `other-${id}` });
    }
  }
  flushOthers();
  await db.query({ request_type: 'write', query: { write: { entries, returns: [] } }, parameters });
  return all;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      rows: { type: 'string' },
      nodes: { type: 'string' },
      items: { type: 'string' },
      repeat: { type: 'string' },
      only: { type: 'string' },
    },
    strict: true,
  });
  const rowCount = positiveInt(values.rows, 100_000, 'rows');
  const nodes = positiveInt(values.nodes, 10_000, 'nodes');
  const itemCount = positiveInt(values.items, 50, 'items');
  const repeat = positiveInt(values.repeat, 5, 'repeat');
  if (itemCount > nodes) throw new Error('--items must not exceed --nodes');
  const only = values.only?.split(',') ?? null;

  const dir = mkdtempSync(join(tmpdir(), 'trellis-foreach-'));
  // The budget is lifted: the build before issue 9's fixes needed more than 30 s per request.
  const db = await open(dir, { queryTimeoutMs: 600_000 });
  try {
    progress(`loading ${nodes} nodes (${itemCount} Items) into ${dir}`);
    const all = await load(db, nodes, itemCount);
    const ids = all.map((it) => it.id);
    const rows: Row[] = Array.from({ length: rowCount }, (_, i) => ({
      i,
      min: (i * 13) % itemCount,
      g: (i * 3) % 5,
      id: ids[(i * 17) % ids.length]!,
    }));
    const chosen = Object.entries(variations(all)).filter(([name]) => only === null || only.includes(name));
    if (only !== null && chosen.length !== only.length) throw new Error(`--only: unknown variation in ${only.join(',')}`);

    // A wrong answer is a bug, not a data point: check before timing anything.
    for (const [name, v] of chosen) {
      for (let k = 1; k <= Math.min(40, rowCount); k++) {
        deepEqual((await db.query(request(v.root, rows.slice(0, k)))).r, v.expected(rows[k - 1]!), `${name}, first ${k} rows`);
      }
    }

    const texts = new Map(chosen.map(([name, v]) => [name, request(v.root, rows)]));
    const runs = new Map<string, number[]>(chosen.map(([name]) => [name, []]));
    // Interleaved: every round runs each variation once, so drift hits them all alike.
    for (let r = 0; r <= repeat; r++) {
      for (const [name, v] of chosen) {
        const t0 = performance.now();
        const body = await db.queryText(texts.get(name)!);
        const ms = performance.now() - t0;
        if (r === 0) {
          // The warm-up round also checks the full request's answer.
          deepEqual((JSON.parse(body) as { r: unknown[] }).r, v.expected(rows[rowCount - 1]!), `${name}, all ${rowCount} rows`);
          continue;
        }
        runs.get(name)!.push(ms);
        progress(`${name} run ${r}/${repeat}: ${round(ms)} ms`);
      }
    }
    const results: Record<string, { rows: number; ms: number; us_per_iteration: number; runs_ms: number[] }> = {};
    for (const [name, list] of runs) {
      const ms = median(list);
      results[name] = {
        rows: rowCount,
        ms: round(ms),
        us_per_iteration: round((ms * 1000) / rowCount, 2),
        runs_ms: list.map((m) => round(m)),
      };
    }
    const report = { bench: 'for-each', machine: machine(), dataset: { nodes, items: itemCount }, repeat, variations: results };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await runBench(main);
