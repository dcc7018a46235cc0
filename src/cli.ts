/** `npm start`: read the configuration (flags > environment > trellis.json > defaults) and serve. */
import { ConfigError, loadConfig, USAGE } from './config.js';
import { startServer } from './server/start.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
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
  const server = await startServer(config);
  console.log(
    `trellis listening on http://${config.host}:${server.port} (mode ${config.mode}, data ${config.dataDir}, ${config.workers} read workers and ${config.longWorkers} for long queries)`,
  );
  server.ready.then(
    () => console.log('trellis ready'),
    (err: unknown) => {
      console.error(`trellis: the database failed to open: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
      void server.close();
    },
  );
  const stop = () => {
    console.log('trellis shutting down');
    void server.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

await main();
