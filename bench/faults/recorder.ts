/**
 * The fault matrix's callback receiver: a loopback HTTP server in the harness's own process that
 * records every delivery (task, attempt, Idempotency-Key, times, answer) and can be taken down,
 * brought back on the same port, or made slower than the service's attempt timeout.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { sleep } from '../infra/wait.js';

/** One request the receiver finished handling: its effect happened, whatever became of the answer. */
export interface Delivery {
  taskId: string;
  attempt: number;
  idempotencyKey: string;
  arrivedMs: number;
  /** When the receiver finished (and carried out the effect). */
  completedMs: number;
  status: number;
  /** The answer reached a connection still open (the caller may yet have given up on it). */
  answered: boolean;
}

export class Recorder {
  readonly deliveries: Delivery[] = [];
  /** Requests accepted and not yet answered. */
  inFlight = 0;
  /** Time the receiver takes before answering, ms: keeps callbacks in flight when a process dies. */
  latencyMs = 0;
  /** While set, the receiver answers this late (beyond the service's attempt timeout). */
  slowMs: number | undefined;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** Bumped by `down()`: a request that arrived before it dies with the receiver, effect not done. */
  private epoch = 0;

  private constructor(readonly port: number) {}

  static async start(port: number): Promise<Recorder> {
    const recorder = new Recorder(port);
    await recorder.up();
    return recorder;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/cb`;
  }

  /** Deliveries whose effect happened (2xx), by task id. */
  effects(): Map<string, Delivery[]> {
    const byTask = new Map<string, Delivery[]>();
    for (const delivery of this.deliveries) {
      if (delivery.status < 200 || delivery.status >= 300) continue;
      const list = byTask.get(delivery.taskId) ?? [];
      list.push(delivery);
      byTask.set(delivery.taskId, list);
    }
    return byTask;
  }

  /** Listens (again) on the same port. */
  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => this.handle(req, res));
    server.keepAliveTimeout = 120_000;
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.server = server;
  }

  /** Stops listening and cuts every open connection: callbacks now get connection refused. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.epoch++;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const arrivedMs = Date.now();
    const epoch = this.epoch;
    const chunks: Buffer[] = [];
    this.inFlight++;
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void this.answer(req, res, arrivedMs, epoch, Buffer.concat(chunks)).finally(() => this.inFlight--);
    });
  }

  private async answer(
    req: IncomingMessage,
    res: ServerResponse,
    arrivedMs: number,
    epoch: number,
    raw: Buffer,
  ): Promise<void> {
    let body: { taskId?: string; attempt?: number };
    try {
      body = JSON.parse(raw.toString('utf8')) as typeof body;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const wait = this.slowMs ?? this.latencyMs;
    if (wait > 0) await sleep(wait);
    // The receiver went down while this request was in hand: like a crashed process, it did nothing.
    if (epoch !== this.epoch) return;
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    this.deliveries.push({
      taskId: String(body.taskId ?? ''),
      attempt: Number(header('x-task-attempt') ?? body.attempt ?? 0),
      idempotencyKey: header('idempotency-key') ?? '',
      arrivedMs,
      completedMs: Date.now(),
      status: 200,
      answered: !res.destroyed,
    });
    // A late answer goes to a caller that has given up (slow partner): the effect happened all the same.
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }
}
