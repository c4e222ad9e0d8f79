/**
 * The `temporal` CLI against the test server, run the way an operator would run it.
 */
import { execFile } from 'node:child_process';
import { inject } from 'vitest';

export interface CliResult {
  /** Exit code; 0 on success. */
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `temporal <args> --address <test server>`; a non-zero exit is returned, not thrown. */
export function temporal(args: readonly string[], { timeoutMs = 30_000 } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    execFile(
      inject('temporalCliPath'),
      [...args, '--address', inject('temporalAddress')],
      { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== 'number') reject(err);
        else resolve({ code: err ? Number(err.code) : 0, stdout, stderr });
      },
    );
  });
}

/** Like `temporal`, but fails unless the command exits 0; returns its stdout. */
export async function temporalOk(args: readonly string[]): Promise<string> {
  const result = await temporal(args);
  if (result.code !== 0) {
    throw new Error(`temporal ${args.join(' ')} exited ${result.code}: ${result.stderr || result.stdout}`);
  }
  return result.stdout;
}

/** Event types of a run's history (the latest run unless `runId`), e.g. `EVENT_TYPE_TIMER_STARTED`. */
export async function historyEventTypes(workflowId: string, runId?: string): Promise<string[]> {
  const args = ['workflow', 'show', '-w', workflowId, '-o', 'json'];
  if (runId) args.push('-r', runId);
  const history = JSON.parse(await temporalOk(args)) as { events?: Array<{ eventType: string }> };
  return (history.events ?? []).map((event) => event.eventType);
}

/** Update events of a run's history: what a rejected update must never leave. */
export async function updateEvents(workflowId: string, runId?: string): Promise<string[]> {
  return (await historyEventTypes(workflowId, runId)).filter((type) => /UPDATE/i.test(type));
}

export interface RunSummary {
  runId: string;
  /** e.g. `WORKFLOW_EXECUTION_STATUS_FAILED`. */
  status: string;
}

/** Every run of a workflow id, as `temporal workflow list` shows them (newest first). */
export async function runsOf(workflowId: string): Promise<RunSummary[]> {
  const stdout = await temporalOk(['workflow', 'list', '-q', `WorkflowId='${workflowId}'`, '-o', 'json']);
  const rows = JSON.parse(stdout || '[]') as Array<{ execution: { runId: string }; status: string }>;
  return rows.map((row) => ({ runId: row.execution.runId, status: row.status }));
}
