/**
 * Temporal calls as the task domain makes them: every call under the API's deadline (an unreachable
 * server means a fast 503, not a hang), Temporal's errors mapped to the service's catalog, and the
 * payload codecs applied where the SDK does not apply them itself (raw service calls).
 */
import {
  Client,
  type Connection,
  type DataConverter,
  type Payload as CommonPayload,
  type WorkflowClientInterceptor,
} from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { temporalUnavailable, toApiError } from './errors.js';
import { decodeStartArgument } from './sdk-knowledge.js';

type Payload = temporal.api.common.v1.IPayload;
type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
export type ExecutionInfo = temporal.api.workflow.v1.IWorkflowExecutionInfo;

export interface TemporalCallsOptions {
  connection: Connection;
  namespace: string;
  /** Deadline of every call (TEMPORAL_RPC_TIMEOUT_MS). */
  rpcTimeoutMs: number;
  /** Payload codec and failure converter (encryption); Temporal's defaults when absent. */
  dataConverter?: DataConverter;
  /** Workflow client interceptors (tracing: src/observability/tracing.ts). */
  interceptors?: WorkflowClientInterceptor[];
}

export class TemporalCalls {
  readonly client: Client;
  readonly namespace: string;
  private readonly codecs: PayloadCodec[];

  constructor(private readonly options: TemporalCallsOptions) {
    this.namespace = options.namespace;
    this.client = new Client({
      connection: options.connection,
      namespace: options.namespace,
      ...(options.dataConverter ? { dataConverter: options.dataConverter } : {}),
      ...(options.interceptors && { interceptors: { workflow: options.interceptors } }),
    });
    this.codecs = options.dataConverter?.payloadCodecs ?? [];
  }

  /** Runs a Temporal call under the deadline and maps its errors (NOT_FOUND as task `taskId`). */
  async call<T>(fn: () => Promise<T>, taskId?: string): Promise<T> {
    try {
      return await this.bounded(fn);
    } catch (err) {
      throw toApiError(err, taskId);
    }
  }

  /**
   * Runs a Temporal call under the deadline and gives up at the deadline itself. The gRPC deadline
   * alone does not bound it: the SDK retries UNAVAILABLE with a backoff whose sleep runs on past the
   * deadline (a 5 s deadline answered after up to 9.8 s with the server down).
   */
  async bounded<T>(fn: () => Promise<T>): Promise<T> {
    const { connection, rpcTimeoutMs: timeoutMs } = this.options;
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        abort.abort();
        reject(
          temporalUnavailable(
            new Error(`no answer from Temporal within TEMPORAL_RPC_TIMEOUT_MS (${timeoutMs} ms)`),
          ),
        );
      }, timeoutMs);
    });
    try {
      return await Promise.race([
        connection.withDeadline(Date.now() + timeoutMs, () => connection.withAbortSignal(abort.signal, fn)),
        expired,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Temporal answers and the namespace exists. */
  async ready(): Promise<void> {
    await this.call(() => this.client.workflowService.describeNamespace({ namespace: this.namespace }));
  }

  /** The first page of a run's history (the latest run without `runId`). */
  async history(
    execution: { workflowId: string; runId?: string },
    maximumPageSize: number,
    taskId: string,
  ): Promise<HistoryEvent[]> {
    const { history } = await this.call(
      () =>
        this.client.workflowService.getWorkflowExecutionHistory({
          namespace: this.namespace,
          execution,
          maximumPageSize,
        }),
      taskId,
    );
    return history?.events ?? [];
  }

  /** The input a run was started with: the first argument of its first event, decoded. */
  async startInput<T>(events: HistoryEvent[], workflowId: string, taskId: string): Promise<T> {
    const payloads = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
    if (!payloads?.[0]) throw toApiError(new Error(`workflow ${workflowId} has no start input`), taskId);
    return decodeStartArgument<T>(this.client.options.loadedDataConverter, payloads);
  }

  /** Payloads through the codecs (encryption), as the SDK would before sending them. */
  async encode(payloads: Payload[]): Promise<Payload[]> {
    let encoded = payloads as CommonPayload[];
    for (const codec of this.codecs) encoded = await codec.encode(encoded);
    return encoded;
  }

  /** A raw visibility row's memo, decoded (the SDK only does this for its own list calls). */
  async decodeMemo(execution: ExecutionInfo): Promise<ExecutionInfo> {
    const fields = execution.memo?.fields;
    if (!fields || this.codecs.length === 0) return execution;
    const names = Object.keys(fields);
    let payloads = names.map((name) => fields[name] as CommonPayload);
    for (const codec of [...this.codecs].reverse()) payloads = await codec.decode(payloads);
    return {
      ...execution,
      memo: { fields: Object.fromEntries(names.map((name, i) => [name, payloads[i]!])) },
    };
  }
}
