/**
 * The API process's graceful stop, in the order a load balancer needs. On SIGTERM `/readyz` answers
 * 503 at once while every route still serves, for `SHUTDOWN_NOT_READY_SECONDS`, so that the balancer
 * takes the process out of rotation before it stops listening; then Fastify closes (no new
 * connections, idle keep-alive ones closed, a request arriving on a busy one answered 503) and the
 * requests in flight finish, within `SHUTDOWN_GRACE_SECONDS`; past it their connections are cut.
 * SIGINT (Ctrl-C at a terminal, where no balancer waits) skips the not-ready period.
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from '../observability/logger.js';

export interface ApiShutdownOptions {
  /** `SHUTDOWN_NOT_READY_SECONDS` in ms: not ready, still serving, after SIGTERM. */
  notReadyMs: number;
  /** `SHUTDOWN_GRACE_SECONDS` in ms: how long requests in flight may take once closing. */
  graceMs: number;
  logger: Logger;
}

/** Past the grace: the process exits even if something else holds it open. */
const LAST_RESORT_MARGIN_MS = 5_000;

export class ApiShutdown {
  private began: number | undefined;

  constructor(private readonly options: ApiShutdownOptions) {}

  /** True from the signal on: `/readyz` answers 503. */
  get draining(): boolean {
    return this.began !== undefined;
  }

  /**
   * Installs the SIGTERM and SIGINT handlers. `closeRest` closes what outlives the app's requests
   * (the Temporal connection, file watchers, the metrics server) once the app is closed.
   */
  onSignals(app: FastifyInstance, closeRest: () => Promise<void>): void {
    const run = (signal: NodeJS.Signals) => {
      this.close(app, signal, closeRest).catch((err: unknown) => {
        this.options.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
    };
    process.on('SIGTERM', () => run('SIGTERM'));
    process.on('SIGINT', () => run('SIGINT'));
  }

  private async close(
    app: FastifyInstance,
    signal: NodeJS.Signals,
    closeRest: () => Promise<void>,
  ): Promise<void> {
    if (this.began !== undefined) return;
    const began = Date.now();
    this.began = began;
    const { logger, graceMs } = this.options;
    const notReadyMs = signal === 'SIGTERM' ? this.options.notReadyMs : 0;
    setTimeout(
      () => {
        logger.error('still running past the shutdown grace: exiting now');
        process.exit(1);
      },
      notReadyMs + graceMs + LAST_RESORT_MARGIN_MS,
    ).unref();
    logger.info(
      { signal, notReadySeconds: notReadyMs / 1000, graceSeconds: graceMs / 1000 },
      'shutting down: /readyz answers 503; still serving until the not-ready period ends',
    );
    await new Promise((resolve) => setTimeout(resolve, notReadyMs));
    logger.info('closing: no new connections; finishing the requests in flight');
    const closed = app.close();
    let timer: NodeJS.Timeout | undefined;
    const late = await Promise.race([
      closed.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), graceMs))),
    ]);
    clearTimeout(timer);
    if (late) {
      logger.warn('requests still in flight past the shutdown grace: closing their connections');
      app.server.closeAllConnections();
      await closed;
    }
    await closeRest();
    logger.info({ drainMs: Date.now() - began }, 'API stopped');
  }
}
