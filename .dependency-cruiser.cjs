/**
 * The layer rule of docs/architecture.md, checked by dependency-cruiser (`npm run lint`):
 * each layer names the layers it may import; anything else is an error. Third-party
 * packages have one importer each where the architecture says so.
 */
const LAYERS = {
  'src/core': [],
  // Search algorithms (text analysis, BM25, vector distances, HNSW) over abstract storage.
  'src/search': ['src/core'],
  'src/store': ['src/search', 'src/core'],
  'src/plan': ['src/core'],
  'src/wire': ['src/plan', 'src/core'],
  // The query language (.hx files): parsed, checked and lowered to plans, as wire does for JSON.
  'src/hql': ['src/plan', 'src/core'],
  // openCypher: parsed to a syntax tree with byte spans, checked, and lowered to table plans.
  'src/cypher': ['src/plan', 'src/core'],
  'src/exec': ['src/plan', 'src/store', 'src/search', 'src/core'],
  'src/database.ts': ['src/wire', 'src/cypher', 'src/plan', 'src/exec', 'src/store', 'src/core'],
  'src/protocol': ['src/plan', 'src/core'],
  'src/pool': ['src/protocol', 'src/core'],
  'src/config.ts': ['src/plan', 'src/core'],
  'src/observe': ['src/core'],
  'src/server': [
    'src/observe',
    'src/pool',
    'src/protocol',
    'src/database.ts',
    'src/hql',
    'src/wire',
    'src/plan',
    'src/exec',
    'src/store',
    'src/core',
  ],
  // The gateway shares the HTTP transport with the server, nothing of its database side
  // (the rule gateway-uses-only-the-transport below).
  'src/gateway': ['src/server', 'src/observe', 'src/core'],
  workers: ['src/database.ts', 'src/protocol', 'src/store', 'src/plan', 'src/core'],
  // `trellis import` and `trellis export` (docs/import-export.md): files read and written,
  // the store's bulk build offline, /v2/query batches online; values as the wire has them.
  'src/bulk-io': ['src/wire', 'src/store', 'src/core'],
};

const escapeDots = (path) => path.replace(/[.]/g, '\\.');
const prefix = (path) => `^${escapeDots(path)}${path.endsWith('.ts') ? '$' : '/'}`;
const SRC = [
  'src/core',
  'src/search',
  'src/store',
  'src/plan',
  'src/wire',
  'src/hql',
  'src/cypher',
  'src/exec',
  'src/database.ts',
  'src/protocol',
  'src/pool',
  'src/config.ts',
  'src/observe',
  'src/server',
  'src/gateway',
  'src/bulk-io',
  'src/index.ts',
  'src/cli.ts',
  'workers',
];

const layerRules = Object.entries(LAYERS).map(([layer, allowed]) => ({
  name: `layer:${layer}`,
  comment: `${layer} may import only ${allowed.length === 0 ? 'node built-ins and packages' : allowed.join(', ')} (docs/architecture.md, Layers)`,
  severity: 'error',
  from: { path: prefix(layer) },
  to: { path: SRC.filter((p) => p !== layer && !allowed.includes(p)).map(prefix) },
}));

const soleImporter = (pkg, owner) => ({
  name: `only-${owner}-imports-${pkg}`,
  comment: `${pkg} is imported only by ${owner}`,
  severity: 'error',
  from: { pathNot: prefix(owner) },
  to: { path: `node_modules/${escapeDots(pkg)}/` },
});

module.exports = {
  forbidden: [
    ...layerRules,
    soleImporter('lmdb', 'src/store'),
    soleImporter('piscina', 'src/pool'),
    soleImporter('uWebSockets.js', 'src/server/uws.ts'),
    {
      name: 'gateway-uses-only-the-transport',
      comment: 'src/gateway imports from src/server only the HTTP transport: uws.ts, http-types.ts, routes.ts, headers.ts',
      severity: 'error',
      from: { path: '^src/gateway/' },
      to: { path: '^src/server/', pathNot: '^src/server/(uws|http-types|routes|headers)[.]ts$' },
    },
    soleImporter('pino', 'src/observe'),
    soleImporter('prom-client', 'src/observe'),
    soleImporter('ioredis', 'src/gateway'),
    soleImporter('undici', 'src/gateway'),
    soleImporter('@modelcontextprotocol/sdk', 'src/server/mcp-endpoint.ts'),
    {
      // Type-only imports may form a cycle: the compiler erases them, so no module can run
      // before another it needs. Expressions and operations are one recursive type (a
      // traversal expression holds an operation tree) declared in two files of src/plan.
      name: 'no-circular',
      comment: 'no import cycles, except through type-only imports',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true, via: { dependencyTypesNot: ['type-only'] } },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '^(dist|bench/peers/node_modules)/' },
  },
};
