/**
 * `trellis gateway ...` (also `npm run gateway -- ...`):
 *   trellis gateway --config gateway.json [--host H] [--port N]   serve
 *   trellis gateway key                                            print a new API key and its digest
 *   trellis gateway credit --config F --database D [--exhausted | --restored]
 *                                                                  show or change a database's credit state
 * A start-up failure prints one line, `trellis gateway: <what>`, and exits 1; a usage
 * mistake prints the usage too and exits 2.
 */
import { parseArgs } from 'node:util';
import { createLogger } from '../observe/log.js';
import { GatewayConfigError, loadGatewayConfig, type GatewayConfig } from './config.js';
import { newKey } from './keys.js';
import { RedisLimiter } from './limiter.js';
import { startGateway } from './start.js';
import { messageOf } from '../core/errors.js';

export const GATEWAY_USAGE = `Usage:
  trellis gateway --config <file> [--host <address>] [--port <n>]
      serve the gateway described by <file> (docs/gateway.md, "Configuration");
      --host and --port override the file's "host" and "port"
  trellis gateway key
      print a new API key and the "sha256" digest to put in the configuration
  trellis gateway credit --config <file> --database <id> [--exhausted | --restored]
      print whether the database's credit is exhausted (its queries get 402), or change it;
      every gateway on the same Redis sees the change at its next request`;

class UsageError extends Error {}

interface Args {
  config: string;
  host: string | undefined;
  port: number | undefined;
  database: string | undefined;
  credit: 'exhausted' | 'restored' | undefined;
}

function parse(argv: readonly string[]): Args {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        config: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        database: { type: 'string' },
        exhausted: { type: 'boolean' },
        restored: { type: 'boolean' },
      },
    }));
  } catch (err) {
    throw new UsageError(messageOf(err));
  }
  if (values.config === undefined) throw new UsageError('--config <file> is required');
  let port: number | undefined;
  if (values.port !== undefined) {
    port = /^\d{1,5}$/.test(values.port) ? Number(values.port) : NaN;
    if (!(port <= 65535)) throw new UsageError(`--port must be a port number (0 to 65535), got "${values.port}"`);
  }
  const credit = values.exhausted ? 'exhausted' : values.restored ? 'restored' : undefined;
  return { config: values.config, host: values.host, port, database: values.database, credit };
}

/** `trellis gateway credit`: the credit state in the Redis of the configuration. */
async function credit(args: Args, config: GatewayConfig): Promise<void> {
  if (args.database === undefined) throw new UsageError('credit needs --database <id>');
  if (!config.databases.has(args.database)) throw new GatewayConfigError(`${config.file} names no database "${args.database}"`);
  const limiter = new RedisLimiter({ url: config.redis.url, keyPrefix: config.redis.keyPrefix });
  try {
    await limiter.ready();
    if (args.credit !== undefined) await limiter.setDisabled(args.database, args.credit === 'exhausted');
    const disabled = await limiter.isDisabled(args.database);
    console.log(`database "${args.database}": ${disabled ? 'credit exhausted, its queries get 402 tenant_disabled' : 'has credit'}`);
  } finally {
    await limiter.close();
  }
}

export async function gatewayMain(argv: readonly string[]): Promise<void> {
  if (argv[0] === 'key') {
    const { key, sha256 } = newKey();
    console.log(JSON.stringify({ key, sha256 }, null, 2));
    console.error('Give the key to the client; put only the sha256 in the gateway configuration.');
    return;
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(GATEWAY_USAGE);
    return;
  }
  const creditCommand = argv[0] === 'credit';
  let config: GatewayConfig;
  try {
    const args = parse(creditCommand ? argv.slice(1) : argv);
    const loaded = loadGatewayConfig(args.config);
    config = { ...loaded, host: args.host ?? loaded.host, port: args.port ?? loaded.port };
    if (creditCommand) {
      await credit(args, config);
      return;
    }
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`trellis gateway: ${err.message}\n\n${GATEWAY_USAGE}`);
      process.exit(2);
    }
    if (err instanceof GatewayConfigError) {
      console.error(`trellis gateway: ${err.message}`);
      process.exit(1);
    }
    if (creditCommand) {
      console.error(`trellis gateway: ${messageOf(err)}`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger({ name: 'trellis-gateway', level: config.logLevel });
  let gateway;
  try {
    gateway = await startGateway(config, logger);
  } catch (err) {
    console.error(`trellis gateway: ${messageOf(err).replace(/\s+/g, ' ')}`);
    process.exit(1);
  }
  const databases = [...config.databases.keys()].join(', ');
  console.log(`trellis gateway listening on http://${config.host}:${gateway.port} (mode ${config.mode}, databases ${databases})`);
  const running = gateway;
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
