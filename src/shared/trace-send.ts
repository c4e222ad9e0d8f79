/**
 * How the callback activity lets tracing wrap one send (src/observability/tracing.ts makes it, the
 * activity takes it in its deps): a client span around `send`, its context added to `headers`.
 */
export type TraceSend = <T extends { statusCode?: number; message?: string }>(
  url: string,
  headers: Record<string, string>,
  send: () => Promise<T>,
) => Promise<T>;
