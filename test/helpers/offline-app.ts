/**
 * The API in-process against an unreachable Temporal: fast tests of everything the API refuses
 * before it calls Temporal. A request a guard lets through ends in 503 UNAVAILABLE instead of the
 * refusal, so these tests fail when a guard breaks. Never listens: tests use `app.inject`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { pino, type Logger } from 'pino';
import { buildServer } from './server.js';
import { ApiMetrics } from '../../src/api/metrics.js';
import { TaskService } from '../../src/tasks/service.js';
import { KeyStore } from '../../src/auth/key-store.js';
import { loadConfig } from '../../src/config/environment.js';
import { Policies } from '../../src/task-types/policies.js';
import { apiConnection } from '../../src/temporal/connection.js';
import { mintKeys, writeKeysFile, type Minted, type TestKey } from './harness.js';

export interface OfflineApp {
  app: FastifyInstance;
  /** The minted keys by the test's names (empty without keys). */
  keys: Record<string, Minted>;
  keyStore: KeyStore | undefined;
  keysFile: string | undefined;
  close(): Promise<void>;
}

export interface OfflineAppOptions {
  /** Configuration beyond the unreachable Temporal (300 ms deadline). */
  env?: Record<string, string>;
  /** API keys to mint into a keys file of its own: authentication on. */
  keys?: Record<string, TestKey>;
  /** Another offline app whose keys file and key store this one shares (a second API process). */
  sharing?: OfflineApp;
  logger?: Logger;
}

export async function offlineApp(options: OfflineAppOptions = {}): Promise<OfflineApp> {
  let keys: Record<string, Minted> = options.sharing?.keys ?? {};
  let keysFile = options.sharing?.keysFile;
  let keyStore = options.sharing?.keyStore;
  const ownsKeyStore = !options.sharing && options.keys !== undefined;
  if (ownsKeyStore) {
    const minted = mintKeys(options.keys!);
    keys = minted.minted;
    keysFile = join(mkdtempSync(join(tmpdir(), 'offline-app-')), 'api-keys.json');
    writeKeysFile(keysFile, minted.file);
    keyStore = new KeyStore(keysFile, pino({ level: 'silent' }));
  }
  const config = loadConfig({
    TEMPORAL_ADDRESS: '127.0.0.1:1',
    TEMPORAL_RPC_TIMEOUT_MS: '300',
    ...(keysFile ? { API_KEYS_FILE: keysFile } : {}),
    ...options.env,
  });
  const connection: Connection = apiConnection(config.temporal);
  const tasks = new TaskService({ connection, config, policies: new Policies() });
  const metrics = new ApiMetrics({ readCounts: async () => ({ byStatus: {}, oldestOverdueSeconds: 0 }) });
  const app = await buildServer({
    config,
    tasks,
    metrics,
    ...(keyStore ? { keys: keyStore } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  await app.ready();
  return {
    app,
    keys,
    keyStore,
    keysFile,
    async close() {
      await app.close();
      if (ownsKeyStore) keyStore?.close();
      await connection.close().catch(() => undefined);
    },
  };
}
