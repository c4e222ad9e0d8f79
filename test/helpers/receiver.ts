/**
 * A real HTTP callback receiver on loopback: records every request and answers as each test scripts it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallbackBody } from '../../src/activities/callback.js';
import { waitFor } from './wait.js';

export interface ReceivedCallback {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: CallbackBody;
  /** The body as sent, byte for byte (what a signature covers). */
  raw: string;
  /** Arrival time, epoch ms. */
  at: number;
}

export interface ScriptedResponse {
  status: number;
  headers?: Record<string, string>;
  /** Hold the response this long (ms) before answering. */
  delayMs?: number;
}

/** Answers for one task id, in order; the last one repeats. */
type Script = ScriptedResponse[];

export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  private readonly scripts = new Map<string, Script>();
  private readonly server: Server;
  private hanging = new Set<() => void>();

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(raw) as ReceivedCallback['body'];
        this.received.push({
          method: req.method ?? '',
          path: req.url ?? '/',
          headers: req.headers,
          body,
          raw,
          at: Date.now(),
        });
        const script = this.scripts.get(body.taskId) ?? this.scripts.get(req.url ?? '/') ?? [{ status: 200 }];
        const index = this.received.filter((r) => r.body.taskId === body.taskId).length - 1;
        const answer = script[Math.min(index, script.length - 1)] ?? { status: 200 };
        const send = () => {
          res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
          res.end('{}');
        };
        if (answer.delayMs) {
          const timer = setTimeout(() => {
            this.hanging.delete(release);
            send();
          }, answer.delayMs);
          const release = () => {
            clearTimeout(timer);
            res.destroy();
          };
          this.hanging.add(release);
        } else send();
      });
    });
  }

  static async start(): Promise<CallbackReceiver> {
    const receiver = new CallbackReceiver();
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  /** Base URL; add a path per test if useful. */
  get url(): string {
    const { port } = this.server.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  /** Scripts the answers for a task id (or a path). */
  script(key: string, responses: Script): void {
    this.scripts.set(key, responses);
  }

  callsFor(taskId: string): ReceivedCallback[] {
    return this.received.filter((r) => r.body.taskId === taskId);
  }

  async waitForCalls(taskId: string, count: number, timeoutMs = 30_000): Promise<ReceivedCallback[]> {
    return waitFor(() => this.callsFor(taskId).length >= count && this.callsFor(taskId), {
      timeoutMs,
      what: `${count} callback(s) for ${taskId}`,
    });
  }

  async close(): Promise<void> {
    for (const release of this.hanging) release();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}
