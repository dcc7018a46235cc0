// The parts of graphology-layout-forceatlas2 the layout uses that its package declares no types for.
declare module 'graphology-layout-forceatlas2/iterate.js' {
  export default function iterate(settings: Record<string, unknown>, nodes: Float32Array, edges: Float32Array): void;
}
declare module 'graphology-layout-forceatlas2/helpers.js' {
  import type Graph from 'graphology';
  const helpers: {
    graphToByteArrays(graph: Graph, getEdgeWeight: () => number): { nodes: Float32Array; edges: Float32Array };
  };
  export default helpers;
}
declare module 'graphology-layout-forceatlas2/defaults.js' {
  const defaults: Record<string, unknown>;
  export default defaults;
}
