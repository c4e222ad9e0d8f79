/** Starts the systems under test by name. */
import { Bullmq } from './bullmq.js';
import { OursApi } from './ours-api.js';
import { OursDirect } from './ours-direct.js';
import { OursPull } from './ours-pull.js';
import type { OursStack } from './ours-stack.js';
import { SetTimeoutFloor } from './settimeout.js';
import { TemporalFloor } from './temporal-floor.js';
import type { System, SystemEnv, SystemName } from './system.js';

/** `ours` gives the stack shared by ours-api, ours-direct and temporal-floor (its server), starting it on first use. */
export async function startSystem(
  name: SystemName,
  env: SystemEnv,
  ours: () => Promise<OursStack>,
): Promise<System> {
  switch (name) {
    case 'ours-api':
      return OursApi.start(await ours());
    case 'ours-pull':
      return OursPull.start(await ours(), env.pullMax);
    case 'ours-direct':
      return OursDirect.start(await ours());
    case 'temporal-floor':
      return TemporalFloor.start(env, await ours());
    case 'bullmq':
      return Bullmq.start(env);
    case 'settimeout':
      return SetTimeoutFloor.start(env);
  }
}
