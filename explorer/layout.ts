/**
 * Runs the layout worker over a graphology graph: matrices out, positions back after each
 * batch, assigned to the graph (sigma redraws), until the worker says the layout settled.
 */
import type Graph from 'graphology';
import helpers from 'graphology-layout-forceatlas2/helpers.js';
import forceAtlas2 from 'graphology-layout-forceatlas2';
import defaults from 'graphology-layout-forceatlas2/defaults.js';

declare const __LAYOUT_WORKER__: string;

export class Layout {
  private worker: Worker | null = null;
  private running = false;
  /** Called with true when a run starts and false when it settles or stops. */
  onState: (running: boolean) => void = () => undefined;

  constructor(private readonly graph: Graph) {}

  get isRunning(): boolean {
    return this.running;
  }

  start(budgetMs = 20_000): void {
    this.stop();
    if (this.graph.order === 0) return;
    const worker = new Worker(__LAYOUT_WORKER__, { type: 'module' });
    this.worker = worker;
    const matrices = helpers.graphToByteArrays(this.graph, () => 1);
    const settings = { ...defaults, ...forceAtlas2.inferSettings(this.graph), barnesHutOptimize: this.graph.order > 1000 };
    worker.onmessage = (event: MessageEvent<{ type: 'positions'; positions: Float32Array; settled: boolean }>) => {
      if (this.worker !== worker) return;
      const { positions, settled } = event.data;
      let i = 0;
      // Nodes added since the start are not in the matrix: the ones beyond it keep their place.
      this.graph.updateEachNodeAttributes(
        (_node, attr) => {
          if (i < positions.length && !attr.fixed) {
            attr.x = positions[i]!;
            attr.y = positions[i + 1]!;
          }
          i += 2;
          return attr;
        },
        { attributes: ['x', 'y'] },
      );
      if (settled) this.finish();
      else requestAnimationFrame(() => worker.postMessage({ type: 'next' }));
    };
    // A worker that fails (it cannot load, an exception) ends the run: the nodes stay where they are.
    worker.onerror = () => {
      if (this.worker === worker) this.finish();
    };
    // A redraw of a large graph costs far more than a few iterations: fewer, longer batches.
    const batchMs = this.graph.order > 2000 ? 500 : this.graph.order > 500 ? 100 : 30;
    worker.postMessage({ type: 'start', nodes: matrices.nodes, edges: matrices.edges, settings, budgetMs, batchMs }, [
      matrices.nodes.buffer,
      matrices.edges.buffer,
    ]);
    this.running = true;
    this.onState(true);
  }

  private finish(): void {
    this.worker?.terminate();
    this.worker = null;
    if (this.running) {
      this.running = false;
      this.onState(false);
    }
  }

  stop(): void {
    this.finish();
  }
}
