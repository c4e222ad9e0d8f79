/**
 * The floor's worker process: one Temporal worker running floor-workflow.ts with its local activity,
 * with the slots and cache of ours (src/worker/workers.ts defaults) and nothing else.
 *
 * Env: TEMPORAL_ADDRESS, TASK_QUEUE, WORKFLOWS_PATH (the workflow's source). Sends 'ready' over IPC
 * once polling.
 */
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { callbackAgent } from './callback.js';
import { createFloorActivities } from './floor-activities.js';

Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
const agent = callbackAgent();
const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
const worker = await Worker.create({
  connection,
  taskQueue: process.env.TASK_QUEUE!,
  workflowsPath: process.env.WORKFLOWS_PATH!,
  activities: createFloorActivities(agent),
  maxCachedWorkflows: 500,
  maxConcurrentWorkflowTaskExecutions: 100,
  maxConcurrentLocalActivityExecutions: 100,
});
const running = worker.run();
process.send?.('ready');
process.on('SIGTERM', () => worker.shutdown());
await running;
await agent.close();
await connection.close();
