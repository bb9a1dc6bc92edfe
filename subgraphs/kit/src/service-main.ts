import { Config, config, createLogger, Logger, requirePrincipalSecret, stopOnSignals } from '@em/core';
import { openDatabase, Orm } from '@em/core/data';

export interface ServiceRuntime {
  cfg: Config;
  logger: Logger;
  orm: Orm;
  /** The secret the gateway's principals are verified with (required: no subgraph starts without it). */
  principalSecret: string;
}

/**
 * Runs a subgraph process: config, logger and database, then `start`, and a clean stop on
 * SIGTERM/SIGINT (in-flight requests finish, then the pool closes).
 */
export function runService(name: string, start: (rt: ServiceRuntime) => Promise<{ stop(): Promise<void> }>): void {
  const logger = createLogger(name);
  (async () => {
    const cfg = config();
    const principalSecret = requirePrincipalSecret(cfg, `${name} subgraph`);
    const orm = await openDatabase(cfg);
    const running = await start({ cfg, logger, orm, principalSecret });
    stopOnSignals(logger, async () => {
      await running.stop();
      await orm.close();
    });
  })().catch((err) => {
    logger.fatal({ err }, 'failed to start');
    process.exit(1);
  });
}
