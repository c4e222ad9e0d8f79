/** The floor workflow's one activity: the callback as every system of the benchmark sends it. */
import type { Agent } from 'undici';
import { postCallback, type CallbackTask } from './callback.js';

export type FloorTask = CallbackTask;

export function createFloorActivities(agent: Agent) {
  return {
    async post(task: FloorTask): Promise<void> {
      const status = await postCallback(agent, task, 1);
      if (status < 200 || status >= 300) throw new Error(`callback answered HTTP ${status}`);
    },
  };
}

export type FloorActivities = ReturnType<typeof createFloorActivities>;
