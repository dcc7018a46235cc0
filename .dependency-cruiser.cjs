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
  // The query language (.hx files): parsed, checked and lowered to plans, checked against the wire schema.
  'src/hql': ['src/wire', 'src/plan', 'src/core'],
  // openCypher: parsed to a syntax tree with byte spans, checked, and lowered to table plans.
  'src/cypher': ['src/plan', 'src/core'],
  'src/exec': ['src/plan', 'src/store', 'src/search', 'src/core'],
  'src/database.ts': ['src/protocol', 'src/wire', 'src/hql', 'src/cypher', 'src/plan', 'src/exec', 'src/store', 'src/core'],
  'src/protocol': ['src/plan', 'src/core'],
  'src/pool': ['src/protocol', 'src/core'],
  'src/config.ts': ['src/plan', 'src/core'],
  // Replication (docs/replication.md): the publisher, the replica's follower and snapshots, over NATS JetStream.
  'src/replication': ['src/store', 'src/core'],
  'src/observe': ['src/core'],
  'src/server': [
    'src/replication',
    'src/observe',
    'src/pool',
    'src/protocol',
    'src/database.ts',
    'src/hql',
    'src/wire',
    // The Cypher body's schema, for the OpenAPI document (src/server/openapi.ts).
    'src/cypher',
    'src/plan',
    'src/exec',
    'src/store',
    'src/core',
  ],
  // The gateway shares the HTTP transport with the server, nothing of its database side
  // (the rule gateway-uses-only-the-transport below).
  'src/gateway': ['src/server', 'src/observe', 'src/core'],
  workers: ['src/database.ts', 'src/protocol', 'src/replication', 'src/store', 'src/plan', 'src/core'],
  // The explorer's browser code (docs/explorer.md): bundled by esbuild, served by
  // src/server/explorer-files.ts as files; it talks to the server over HTTP only.
  explorer: [],
  // `trellis import` and `trellis export` (docs/import-export.md): files read and written,
  // the store's bulk build offline, /v2/query batches online; values as the wire has them.
  'src/bulk-io': ['src/wire', 'src/store', 'src/core'],
};

/** The three files that declare the plan's recursive type. */
const PLAN_TYPES = '^src/plan/(expr|ops|table)[.]ts$';

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
  'src/replication',
  'src/observe',
  'src/server',
  'src/gateway',
  'src/bulk-io',
  'src/index.ts',
  'src/cli.ts',
  'workers',
  'explorer',
];

const layerRules = Object.entries(LAYERS).map(([layer, allowed]) => ({
  name: `layer:${layer}`,
  comment: `${layer} may import only ${allowed.length === 0 ? 'node built-ins and packages' : allowed.join(', ')} (docs/architecture.md, Layers)`,
  severity: 'error',
  from: { path: prefix(layer) },
  to: { path: SRC.filter((p) => p !== layer && !allowed.includes(p)).map(prefix) },
}));

/** `pkg` is imported by `owner` (a folder or a file) and, where given, by `others` only. */
const soleImporter = (pkg, owner, others = []) => ({
  name: `only-${owner}-imports-${pkg}`,
  comment: `${pkg} is imported only by ${[owner, ...others].join(', ')}`,
  severity: 'error',
  from: { pathNot: [owner, ...others].map(prefix).join('|') },
  to: { path: `node_modules/${escapeDots(pkg)}/` },
});

module.exports = {
  forbidden: [
    ...layerRules,
    soleImporter('lmdb', 'src/store'),
    // The native vector engine (loaded through createRequire, which the cruiser cannot
    // follow: this rule keeps any static import of it elsewhere out).
    soleImporter('usearch', 'src/store/native-vectors.ts'),
    soleImporter('piscina', 'src/pool'),
    soleImporter('uWebSockets.js', 'src/server/uws.ts'),
    {
      name: 'gateway-uses-only-the-transport',
      comment:
        "src/gateway imports from src/server only the HTTP transport (uws.ts, http-types.ts, http-errors.ts, routes.ts, headers.ts) and the explorer's files (explorer-files.ts)",
      severity: 'error',
      from: { path: '^src/gateway/' },
      to: { path: '^src/server/', pathNot: '^src/server/(uws|http-types|http-errors|routes|headers|explorer-files)[.]ts$' },
    },
    soleImporter('pino', 'src/observe'),
    soleImporter('prom-client', 'src/observe'),
    soleImporter('ioredis', 'src/gateway'),
    // The gateway's pool to its backends; a replica's snapshot download streams its pieces
    // (fetch's body moved a tenth as fast: docs/benchmarks.md).
    soleImporter('undici', 'src/gateway', ['src/replication/pieces.ts']),
    soleImporter('@nats-io/transport-node', 'src/replication/nats.ts'),
    soleImporter('@nats-io/jetstream', 'src/replication/nats.ts'),
    soleImporter('@modelcontextprotocol/sdk', 'src/server/mcp-endpoint.ts'),
    {
      // The store's modules are its own: every other layer imports its entry point. The
      // read worker's loader alone also checks the data folder (store/folder.ts, plain
      // node:fs) before anything loads lmdb (workers/read-worker-entry.cts says why).
      name: 'store-through-its-entry-point',
      comment: 'outside src/store, only src/store/index.ts is imported (and folder.ts by the read worker loader and the import CLI)',
      severity: 'error',
      from: { path: '^(src|workers)/', pathNot: '^src/store/' },
      to: {
        path: '^src/store/',
        pathNot: ['^src/store/index[.]ts$', '^src/store/folder[.]ts$'],
      },
    },
    {
      name: 'store-folder-only-for-the-read-worker-loader',
      // Both load the rest of the store only when they need it: the read worker's loader, and
      // the import CLI (an online import never loads lmdb-js; docs/architecture.md).
      comment: 'src/store/folder.ts is imported outside src/store only by workers/read-worker-entry.cts and src/bulk-io/cli.ts',
      severity: 'error',
      from: { path: '^(src|workers)/', pathNot: ['^src/store/', '^workers/read-worker-entry[.]cts$', '^src/bulk-io/cli[.]ts$'] },
      to: { path: '^src/store/folder[.]ts$' },
    },
    {
      // Expressions and operations are one recursive type (a traversal expression holds an
      // operation tree; a Cypher table plan is an operation), declared in three files of
      // src/plan; their imports of each other are type-only, which the compiler erases.
      // Any other cycle is an error.
      name: 'no-circular',
      comment: 'no import cycles, except the type-only recursion of src/plan/(expr|ops|table).ts',
      severity: 'error',
      from: { path: '^(src|workers)/', pathNot: PLAN_TYPES },
      to: { circular: true },
    },
    {
      name: 'no-circular-plan-types',
      comment: 'the plan type recursion is type-only and stays within src/plan/(expr|ops|table).ts',
      severity: 'error',
      from: { path: PLAN_TYPES },
      to: { circular: true, via: { pathNot: PLAN_TYPES } },
    },
    {
      name: 'plan-type-recursion-is-type-only',
      comment: 'the imports among src/plan/(expr|ops|table).ts are type-only',
      severity: 'error',
      from: { path: PLAN_TYPES },
      to: { path: PLAN_TYPES, dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '^(dist|bench/peers/node_modules)/' },
  },
};
