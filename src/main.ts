/**
 * Process entry: config → dependencies → bootstrap → listen; SIGTERM/SIGINT drain and exit.
 * The first start on an empty database prints the bootstrap management key once, to stdout,
 * deliberately outside the logger (which must never carry secrets).
 * @module
 */
import { ConfigError, loadConfig } from './config';
import { openDependencies } from './deps';
import { bootstrapIfEmpty } from './orgs/provision';
import { startServer } from './server';
import { createLogger } from './observability/logger';

async function main(): Promise<void> {
  const config = loadConfig();
  const deps = await openDependencies(config);
  const created = await bootstrapIfEmpty(deps.db, config.auth.bootstrapKey);
  if (created) {
    const shown = config.auth.bootstrapKey ? '(the value of SWITCHYARD_BOOTSTRAP_KEY)' : created.secret;
    process.stdout.write(
      `\nSwitchyard: created organization "${created.org.name}" (${created.org.id}) with workspace "default".\n` +
        `Management key (shown once, store it now): ${shown}\n\n`,
    );
  }
  const server = await startServer(deps);
  deps.rankings.scheduler.start();
  deps.logger.info('listening', {
    port: server.apiPort,
    metrics_port: server.metricsPort,
    database: deps.db.kind,
    redis: deps.kv.kind,
  });
  const stop = (signal: string) => {
    server.shutdown(signal).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((err: unknown) => {
  const logger = createLogger('error');
  if (err instanceof ConfigError) logger.error(err.message, { problems: err.problems });
  else logger.error('startup failed', { err });
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});
