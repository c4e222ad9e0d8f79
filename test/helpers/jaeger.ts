/**
 * A real trace store for the tracing tests: Jaeger v2 (scripts/jaeger.sh builds it into .tools/) with
 * its in-memory store, an OTLP receiver (HTTP and gRPC) and the query API, all on loopback ports of
 * their own. Tests read traces back as Jaeger serves them to its UI: `GET /api/traces/<traceId>`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.js';
import { waitFor } from './wait.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** $JAEGER_PATH, else the build scripts/jaeger.sh caches; undefined when neither is there. */
export function jaegerPath(): string | undefined {
  // The version the script pins, read from it: one place to change it.
  const script = readFileSync(join(ROOT, 'scripts', 'jaeger.sh'), 'utf8');
  const version = /JAEGER_VERSION:-([\d.]+)/.exec(script)?.[1];
  const cached = join(ROOT, '.tools', `jaeger-${version}`, 'jaeger');
  const path = process.env.JAEGER_PATH ?? cached;
  return existsSync(path) ? path : undefined;
}

export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; traceID: string; spanID: string }>;
  tags: Array<{ key: string; value: unknown }>;
  processID: string;
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string }>;
}

export class Jaeger {
  private output = '';

  private constructor(
    private readonly child: ChildProcess,
    /** OTLP over HTTP: the base endpoint (OTEL_EXPORTER_OTLP_ENDPOINT). */
    readonly otlpHttp: string,
    /** OTLP over gRPC. */
    readonly otlpGrpc: string,
    readonly queryUrl: string,
  ) {
    child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString('utf8')));
  }

  static async start(binary: string): Promise<Jaeger> {
    const [http, grpc, query, queryGrpc] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const config = join(mkdtempSync(join(tmpdir(), 'jaeger-')), 'config.yaml');
    writeFileSync(config, jaegerConfig({ http, grpc, query, queryGrpc }));
    const child = spawn(binary, ['--config', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    const jaeger = new Jaeger(
      child,
      `http://127.0.0.1:${http}`,
      `http://127.0.0.1:${grpc}`,
      `http://127.0.0.1:${query}`,
    );
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`jaeger exited ${child.exitCode}:\n${jaeger.output}`);
        return (await fetch(`${jaeger.queryUrl}/api/services`).catch(() => undefined))?.ok;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'jaeger query API' },
    );
    return jaeger;
  }

  /** The trace as stored, or undefined while Jaeger has none of its spans. */
  async trace(traceId: string): Promise<JaegerTrace | undefined> {
    const response = await fetch(`${this.queryUrl}/api/traces/${traceId}`);
    if (response.status === 404) return undefined;
    if (!response.ok) throw new Error(`jaeger answered ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { data: JaegerTrace[] };
    return body.data[0];
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}

function jaegerConfig(ports: { http: number; grpc: number; query: number; queryGrpc: number }): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    http:
      endpoint: 127.0.0.1:${ports.query}
    grpc:
      endpoint: 127.0.0.1:${ports.queryGrpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.http}
      grpc:
        endpoint: 127.0.0.1:${ports.grpc}
exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`;
}
