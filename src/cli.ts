/**
 * `npm start`: read the configuration (flags > environment > trellis.json > defaults) and serve.
 *
 * A start-up failure (a folder or port that cannot be used, a database that does not open,
 * a thread that dies while starting) prints one line, `trellis: <what failed, which path,
 * what to do>`, on stderr and exits with status 1; never a stack trace. Everything else is
 * logged as JSON lines on stdout (pino, `--log-level`), the "listening" and "ready" lines
 * too: tests and benches wait for their `msg` text.
 */
// The server's modules load only for the server (`import()` below): `trellis import` and
// `trellis export` start faster without them (about 0.5 s here).
import type { Config } from './config.js';
import type { RunningServer } from './server/start.js';
import type { Project, ProjectConfig } from './hql/project.js';
import { messageOf } from './core/errors.js';

/** How long a failed start may take to close its threads before the process exits anyway. */
const FAILED_CLOSE_MS = 3000;

let failed = false;
let server: RunningServer | undefined;

/** Reports a start-up failure in one line, closes what started, exits 1. Once. */
function failStartup(err: unknown, dataDir: string | undefined): void {
  if (failed) return;
  failed = true;
  console.error(`trellis: ${startupMessage(err, dataDir)}`);
  process.exitCode = 1;
  const exit = () => process.exit(1);
  setTimeout(exit, FAILED_CLOSE_MS).unref();
  void (server?.close() ?? Promise.resolve()).then(exit, exit);
}

/** The error's message on one line; one that does not name the data folder gets it. */
function startupMessage(err: unknown, dataDir: string | undefined): string {
  const message = messageOf(err).replace(/\s+/g, ' ').trim();
  if (dataDir === undefined || message.includes(dataDir) || message.startsWith('cannot listen')) return message;
  return `cannot open the database in ${dataDir}: ${message}`;
}

async function main(): Promise<void> {
  const { ConfigError, loadConfig, USAGE } = await import('./config.js');
  const { loadProject } = await import('./hql/project.js');
  let config: Config;
  try {
    config = loadConfig(process.argv.slice(2), process.env, process.cwd());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`trellis: ${err.message}\n\n${USAGE}`);
      process.exit(2);
    }
    throw err;
  }
  if (config.help) {
    console.log(USAGE);
    return;
  }
  const { dataDir } = config;
  let queries: Project | undefined;
  if (config.project !== undefined) {
    // An invalid project stops start-up with every diagnostic (D15), before anything opens.
    const loaded = loadProject(config.project, projectConfig(config));
    if (!loaded.ok) {
      console.error(
        `${loaded.report}\n\ntrellis: the project in ${config.project} has ${problems(loaded.count)}; the server did not start`,
      );
      process.exit(1);
    }
    queries = loaded.project;
  }
  const { createLogger } = await import('./observe/log.js');
  const { startServer } = await import('./server/start.js');
  const logger = createLogger({ name: 'trellis', level: config.logLevel });
  // Until the server is ready, anything thrown anywhere (a read worker that fails to open
  // surfaces as an unhandled error event of the pool) is a start-up failure: one line.
  const onCrash = (err: unknown) => failStartup(err, dataDir);
  process.on('uncaughtException', onCrash);
  process.on('unhandledRejection', onCrash);
  try {
    server = await startServer({ ...config, logger, ...(queries === undefined ? {} : { queries }) });
  } catch (err) {
    failStartup(err, dataDir);
    return;
  }
  const { host, mode, workers, longWorkers, metrics } = config;
  logger.info(
    { host, port: server.port, mode, dataDir, workers, longWorkers, metrics },
    `trellis listening on http://${host}:${server.port} (mode ${mode}, data ${dataDir}, ${workers} read workers and ${longWorkers} for long queries)`,
  );
  if (config.projectName !== undefined) logger.info({ project: config.projectName }, `serving project ${config.projectName}`);
  for (const notice of queries?.notices ?? []) logger.warn(notice);
  server.ready.then(
    () => {
      if (failed) return;
      process.off('uncaughtException', onCrash);
      process.off('unhandledRejection', onCrash);
      logger.info('trellis ready');
    },
    (err: unknown) => failStartup(err, dataDir),
  );
  const running = server;
  const stop = () => {
    logger.info('trellis shutting down');
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** What a project's loading takes from the configuration. */
function projectConfig(config: Config): ProjectConfig {
  return {
    mcp: config.mcp,
    bm25: config.bm25,
    embedding: config.embedding,
    queries: config.queriesDir,
    efSearch: config.efSearch,
    vectorIndex: config.vectorIndex,
  };
}

function problems(n: number): string {
  return n === 1 ? '1 problem' : `${n} problems`;
}

/** `trellis check --project DIR`: the start-up diagnostics of a project, without a server. */
async function checkMain(argv: readonly string[]): Promise<void> {
  const { loadConfig } = await import('./config.js');
  const { loadProject } = await import('./hql/project.js');
  let config: Config;
  try {
    config = loadConfig(argv, process.env, process.cwd());
  } catch (err) {
    console.error(`trellis check: ${messageOf(err)}`);
    process.exit(2);
  }
  if (config.project === undefined) {
    console.error('trellis check: no project: give --project DIR (a folder with trellis.json and .hx files)');
    process.exit(2);
  }
  const loaded = loadProject(config.project, projectConfig(config));
  if (!loaded.ok) {
    console.error(`${loaded.report}\n\ntrellis check: ${problems(loaded.count)} in ${config.project}`);
    process.exit(1);
  }
  const { schema, queries } = loaded.project;
  const named = config.projectName === undefined ? '' : ` (project ${config.projectName})`;
  console.log(
    `trellis check: ${config.project}${named} is valid: ${queries.size} queries, ${schema.nodes.size} node types, ${schema.edges.size} edge types`,
  );
  for (const notice of loaded.project.notices) console.log(`trellis check: note: ${notice}`);
}

if (process.argv[2] === 'check') {
  await checkMain(process.argv.slice(3));
} else if (process.argv[2] === 'import') {
  const { importMain } = await import('./bulk-io/cli.js');
  process.exitCode = await importMain(process.argv.slice(3));
} else if (process.argv[2] === 'export') {
  const { exportMain } = await import('./bulk-io/cli.js');
  process.exitCode = await exportMain(process.argv.slice(3));
} else if (process.argv[2] === 'backup') {
  const { backupMain } = await import('./replication/cli.js');
  process.exitCode = await backupMain(process.argv.slice(3));
} else if (process.argv[2] === 'restore') {
  const { restoreMain } = await import('./replication/cli.js');
  process.exitCode = await restoreMain(process.argv.slice(3));
} else if (process.argv[2] === 'promote') {
  const { promoteMain } = await import('./replication/cli.js');
  process.exitCode = await promoteMain(process.argv.slice(3));
} else if (process.argv[2] === 'gateway') {
  // The gateway is a mode of the same program (DECISIONS D19): `trellis gateway ...`.
  const { gatewayMain } = await import('./gateway/cli.js');
  await gatewayMain(process.argv.slice(3));
} else {
  try {
    await main();
  } catch (err) {
    failStartup(err, undefined);
  }
}
