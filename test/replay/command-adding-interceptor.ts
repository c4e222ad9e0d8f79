/**
 * A workflow interceptor that adds one command (a memo upsert) before the workflow runs: the control
 * of the replay test with interceptors bundled in, which must fail on it (so passing with Temporal's
 * OpenTelemetry interceptors means they added no command).
 */
import { upsertMemo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';

export const interceptors: WorkflowInterceptorsFactory = () => ({
  inbound: [
    {
      async execute(input, next) {
        upsertMemo({ addedByInterceptor: true });
        return next(input);
      },
    },
  ],
});
