/**
 * ForceAtlas2 in a worker (graphology-layout-forceatlas2's iteration), so the page stays
 * responsive while a large graph settles. The page sends the node and edge matrices once;
 * the worker answers positions after each batch of iterations (as many as fit in
 * `batchMs`, at most 50) and waits for the page's `next` before running more (the page
 * draws between batches), and says `settled` when the nodes have almost stopped moving or
 * the time budget is spent.
 */
import iterate from 'graphology-layout-forceatlas2/iterate.js';

interface Start {
  readonly type: 'start';
  readonly nodes: Float32Array;
  readonly edges: Float32Array;
  readonly settings: Record<string, unknown>;
  /** Stop after this long even if the nodes still move (ms). */
  readonly budgetMs: number;
  /** Iterate this long before sending positions (ms): each batch costs the page a redraw. */
  readonly batchMs: number;
}

/** Fields per node in the matrix (graphology-layout-forceatlas2's PPN). */
const PPN = 10;

let nodes: Float32Array | null = null;
let edges: Float32Array | null = null;
let settings: Record<string, unknown> = {};
let started = 0;
let budget = 0;
let iterations = 0;
let batchMs = 30;

/** Mean movement per node in the last batch, relative to the graph's extent. */
function batch(): number {
  const n = nodes!.length / PPN;
  const before = Float32Array.from(nodes!);
  const until = performance.now() + batchMs;
  let count = 0;
  do {
    iterate(settings, nodes!, edges!);
    count++;
  } while (performance.now() < until && count < 50);
  iterations += count;
  let moved = 0;
  let minX = Infinity;
  let maxX = -Infinity;
  let minY = Infinity;
  let maxY = -Infinity;
  for (let i = 0; i < nodes!.length; i += PPN) {
    const x = nodes![i]!;
    const y = nodes![i + 1]!;
    moved += Math.hypot(x - before[i]!, y - before[i + 1]!);
    minX = Math.min(minX, x);
    maxX = Math.max(maxX, x);
    minY = Math.min(minY, y);
    maxY = Math.max(maxY, y);
  }
  const extent = Math.max(maxX - minX, maxY - minY, 1e-9);
  return moved / Math.max(n, 1) / count / extent;
}

function step(): void {
  if (nodes === null) return;
  const movement = batch();
  const settled = movement < 0.0005 || performance.now() - started > budget || iterations > 5000;
  const positions = new Float32Array((nodes.length / PPN) * 2);
  for (let i = 0, j = 0; i < nodes.length; i += PPN, j += 2) {
    positions[j] = nodes[i]!;
    positions[j + 1] = nodes[i + 1]!;
  }
  postMessage({ type: 'positions', positions, settled, iterations }, { transfer: [positions.buffer] });
  if (settled) nodes = null;
}

onmessage = (event: MessageEvent<Start | { type: 'next' } | { type: 'stop' }>) => {
  const message = event.data;
  if (message.type === 'start') {
    nodes = message.nodes;
    edges = message.edges;
    settings = message.settings;
    budget = message.budgetMs;
    batchMs = message.batchMs;
    started = performance.now();
    iterations = 0;
    step();
  } else if (message.type === 'next') {
    step();
  } else {
    nodes = null;
  }
};
