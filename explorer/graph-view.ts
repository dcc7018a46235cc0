/**
 * The graph drawn: a graphology graph rendered by sigma (WebGL), laid out by ForceAtlas2
 * in a worker. Click selects (the page shows the properties), double-click asks for the
 * node's neighbours, drag moves a node, the wheel zooms; fit() frames everything.
 */
import Graph from 'graphology';
import Sigma from 'sigma';
import { captionOf, type GraphData, type GraphEdge, type GraphNode } from './convert.js';
import { Layout } from './layout.js';
import type { Styles } from './styles.js';

export interface GraphEvents {
  select(kind: 'node' | 'edge' | null, id: string | null): void;
  expand(id: string): void;
}

export class GraphView {
  readonly graph = new Graph({ multi: true, type: 'directed', allowSelfLoops: true });
  readonly sigma: Sigma;
  readonly layout: Layout;
  /** The elements drawn, with their labels and properties. */
  readonly nodes = new Map<string, GraphNode>();
  readonly edges = new Map<string, GraphEdge>();
  private selected: string | null = null;
  private dragged: string | null = null;

  constructor(
    container: HTMLElement,
    private readonly styles: Styles,
    private readonly events: GraphEvents,
  ) {
    this.sigma = new Sigma(this.graph, container, {
      defaultEdgeType: 'arrow',
      renderEdgeLabels: true,
      enableEdgeEvents: true,
      labelRenderedSizeThreshold: 6,
      labelSize: 12,
      zIndex: true,
      minCameraRatio: 0.01,
      maxCameraRatio: 20,
      allowInvalidContainer: true,
      nodeReducer: (node, data) => (node === this.selected ? { ...data, highlighted: true, zIndex: 1 } : data),
    });
    this.layout = new Layout(this.graph);
    this.sigma.on('clickNode', ({ node }) => this.select('node', node));
    this.sigma.on('clickEdge', ({ edge }) => this.select('edge', edge));
    this.sigma.on('clickStage', () => this.select(null, null));
    this.sigma.on('doubleClickNode', (event) => {
      event.preventSigmaDefault();
      this.events.expand(event.node);
    });
    this.sigma.on('downNode', ({ node }) => {
      this.dragged = node;
      this.graph.setNodeAttribute(node, 'fixed', true);
    });
    this.sigma.on('moveBody', ({ event }) => {
      if (this.dragged === null) return;
      const at = this.sigma.viewportToGraph(event);
      this.graph.mergeNodeAttributes(this.dragged, { x: at.x, y: at.y });
      event.preventSigmaDefault();
      event.original.preventDefault();
      event.original.stopPropagation();
    });
    const drop = () => {
      this.dragged = null;
    };
    this.sigma.on('upNode', drop);
    this.sigma.on('upStage', drop);
  }

  private select(kind: 'node' | 'edge' | null, id: string | null): void {
    this.selected = kind === 'node' ? id : null;
    this.sigma.refresh({ skipIndexation: true });
    this.events.select(kind, id);
  }

  clear(): void {
    this.layout.stop();
    this.graph.clear();
    this.nodes.clear();
    this.edges.clear();
    this.selected = null;
  }

  /** Replaces the graph with `data` (at most `cap` nodes, and the edges between them) and lays it out. */
  show(data: GraphData, cap = Infinity): void {
    this.clear();
    this.add(data, null, cap);
    this.sigma.getCamera().setState({ x: 0.5, y: 0.5, ratio: 1, angle: 0 });
  }

  /**
   * Adds what is new in `data`; new nodes start around `near` (a node drawn already) or at
   * random. Returns the number of nodes added.
   */
  add(data: GraphData, near: string | null, cap = Infinity): number {
    const spread = Math.sqrt(this.graph.order + data.nodes.size) * 10;
    const origin = near !== null && this.graph.hasNode(near) ? this.graph.getNodeAttributes(near) : null;
    let added = 0;
    for (const node of data.nodes.values()) {
      const had = this.nodes.get(node.id);
      if (had !== undefined) {
        if (had.partial && !node.partial) {
          this.nodes.set(node.id, node);
          this.graph.mergeNodeAttributes(node.id, this.nodeStyle(node));
        }
        continue;
      }
      if (this.nodes.size >= cap) continue;
      this.nodes.set(node.id, node);
      const angle = Math.random() * 2 * Math.PI;
      const radius = origin === null ? Math.random() * spread : 5 + Math.random() * 5;
      this.graph.addNode(node.id, {
        x: (origin?.x ?? 0) + Math.cos(angle) * radius,
        y: (origin?.y ?? 0) + Math.sin(angle) * radius,
        size: 8,
        ...this.nodeStyle(node),
      });
      added++;
    }
    for (const edge of data.edges.values()) {
      if (!this.nodes.has(edge.source) || !this.nodes.has(edge.target)) continue;
      const had = this.edges.get(edge.id);
      if (had !== undefined && !(had.partial && !edge.partial)) continue;
      this.edges.set(edge.id, edge);
      if (this.graph.hasEdge(edge.id)) this.graph.dropEdge(edge.id);
      this.graph.addDirectedEdgeWithKey(edge.id, edge.source, edge.target, { size: 2, ...this.edgeStyle(edge) });
    }
    // Past a few thousand nodes, edge captions cost more than they tell.
    this.sigma.setSetting('renderEdgeLabels', this.graph.size <= 2000);
    if (this.graph.order > 0) this.layout.start(this.graph.order > 2000 ? 15_000 : 8_000);
    return added;
  }

  private nodeStyle(node: GraphNode): { label: string; color: string } {
    const style = this.styles.of(node.labels[0] ?? '');
    return { label: captionOf(node, style.caption), color: style.color };
  }

  private edgeStyle(edge: GraphEdge): { label: string; color: string } {
    return { label: edge.type, color: '#cbd5e1' };
  }

  /** Applies changed styles to what is drawn. */
  restyle(): void {
    for (const node of this.nodes.values()) this.graph.mergeNodeAttributes(node.id, this.nodeStyle(node));
  }

  /** The labels drawn, with their node counts, for the legend. */
  labels(): Map<string, number> {
    const out = new Map<string, number>();
    for (const node of this.nodes.values()) {
      const label = node.labels[0] ?? '';
      out.set(label, (out.get(label) ?? 0) + 1);
    }
    return out;
  }

  fit(): void {
    void this.sigma.getCamera().animatedReset({ duration: 300 });
  }

  /** The canvas layers drawn now, on white, as a PNG. */
  png(): Promise<Blob> {
    this.sigma.refresh();
    const { width, height } = this.sigma.getDimensions();
    const ratio = window.devicePixelRatio || 1;
    const canvas = document.createElement('canvas');
    canvas.width = width * ratio;
    canvas.height = height * ratio;
    const ctx = canvas.getContext('2d')!;
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    // WebGL layers keep their pixels until the next composite: read right after the refresh.
    for (const layer of Object.values(this.sigma.getCanvases())) ctx.drawImage(layer, 0, 0, canvas.width, canvas.height);
    return new Promise((resolve, reject) =>
      canvas.toBlob((blob) => (blob === null ? reject(new Error('no image')) : resolve(blob)), 'image/png'),
    );
  }
}
