/** Parameters of each scenario in full and quick mode; every scenario prints the ones it used. */
import type { SystemName } from './systems/system.js';

export interface Plan {
  mode: 'full' | 'quick';
  failing: { tasksPerSystem: number; leadS: number; spreadS: number; failFirst: number; waitS: number };
  steady: {
    headlineRate: number;
    headlineWindowS: number;
    searchWindowS: number;
    /** Doublings above the headline rate tried by systems that pass it. */
    stepsUp: number;
    /** Halvings below it tried by systems that fail it. */
    stepsDown: number;
    delayMinS: number;
    delayMaxS: number;
    /** A rate passes when the p99 lag is under this. */
    lagLimitMs: number;
    /** Wait for late callbacks this long after the last due time. */
    graceS: number;
    /** Let a system work off what a trial left this long; restart it if it is still busy. */
    settleS: number;
  };
  /** Fire lag at the fixed low rate the lag target of issue 25 is stated at. */
  lag: {
    rate: number;
    windowS: number;
    delayMinS: number;
    delayMaxS: number;
    /** The p99 of the tasks due in each span of this length, to see lag drift over the window. */
    spanS: number;
    /** Wait for late callbacks this long after the last due time. */
    graceS: number;
    /** Let a system work off what a trial left this long; restart it if it is still busy. */
    settleS: number;
    /** The systems measured, of those selected (the others' rows say why not); all when left out. */
    systems?: readonly SystemName[];
  };
  herd: { tasks: number; maxLeadS: number; waitS: number };
  create: { concurrency: number; rounds: number; tasksPerRound: number; roundS: number; settleS: number };
  /** `settleS`: the longest wait for the system to go idle before each checkpoint is read. */
  pending: { tasks: number; concurrency: number; timeLimitS: number; checkpoints: number; settleS: number };
}

export const PLANS: Record<Plan['mode'], Plan> = {
  full: {
    mode: 'full',
    failing: { tasksPerSystem: 20, leadS: 5, spreadS: 10, failFirst: 2, waitS: 30 },
    steady: {
      headlineRate: 100,
      headlineWindowS: 12,
      searchWindowS: 8,
      stepsUp: 1,
      stepsDown: 2,
      delayMinS: 5,
      delayMaxS: 15,
      lagLimitMs: 1000,
      graceS: 12,
      settleS: 20,
    },
    lag: { rate: 20, windowS: 120, delayMinS: 2, delayMaxS: 5, spanS: 60, graceS: 15, settleS: 20 },
    herd: { tasks: 5000, maxLeadS: 40, waitS: 150 },
    create: { concurrency: 64, rounds: 3, tasksPerRound: 2000, roundS: 5, settleS: 20 },
    pending: { tasks: 50_000, concurrency: 64, timeLimitS: 75, checkpoints: 6, settleS: 25 },
  },
  quick: {
    mode: 'quick',
    failing: { tasksPerSystem: 5, leadS: 2, spreadS: 1, failFirst: 2, waitS: 15 },
    steady: {
      headlineRate: 100,
      headlineWindowS: 0.5,
      searchWindowS: 0.5,
      stepsUp: 0,
      stepsDown: 0,
      delayMinS: 2,
      delayMaxS: 4,
      lagLimitMs: 1000,
      graceS: 4,
      settleS: 15,
    },
    // The 2-minute budget of --quick leaves room for one system: the one the target is about.
    lag: {
      rate: 20,
      windowS: 5,
      delayMinS: 2,
      delayMaxS: 5,
      spanS: 60,
      graceS: 4,
      settleS: 15,
      systems: ['ours-api'],
    },
    herd: { tasks: 50, maxLeadS: 4, waitS: 8 },
    create: { concurrency: 64, rounds: 1, tasksPerRound: 100, roundS: 2, settleS: 4 },
    pending: { tasks: 500, concurrency: 64, timeLimitS: 3, checkpoints: 3, settleS: 4 },
  },
};

/**
 * The herd plan for `tasks` tasks: the full plan's longest lead (the lead itself follows the measured
 * create rate), and its wait scaled from its 5,000 tasks, never under the given plan's nor 30 s.
 */
export function herdPlan(base: Plan['herd'], tasks: number): Plan['herd'] {
  const full = PLANS.full.herd;
  const scale = tasks / full.tasks;
  return {
    tasks,
    maxLeadS: Math.max(base.maxLeadS, full.maxLeadS),
    waitS: Math.max(base.waitS, 30, Math.ceil(full.waitS * scale)),
  };
}
