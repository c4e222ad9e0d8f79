/**
 * The schedule domain, as the API uses it: recurring tasks on Temporal Schedules. Each occurrence
 * is one task: the schedule's action starts the delayed-task workflow with the input a one-shot
 * create builds. Wiring only; each part is in its own module.
 */
import type { TaskAccess } from '../auth/principal.js';
import type {
  BackfillScheduleBody,
  CreateScheduleBody,
  ListSchedulesQuery,
  Schedule,
  ScheduleList,
  TriggerScheduleBody,
  UpdateScheduleBody,
} from '../contract/schedules.js';
import type { TaskServiceOptions } from '../tasks/service.js';

/** What the schedule domain needs: what the task domain does (the same checks, the same Temporal). */
export type ScheduleServiceOptions = TaskServiceOptions;

export interface CreateScheduleResult {
  schedule: Schedule;
  /** False when an identical schedule of this id existed (an idempotent repeat). */
  created: boolean;
}

export class ScheduleService {
  constructor(readonly options: ScheduleServiceOptions) {}

  create(_access: TaskAccess, _body: CreateScheduleBody): Promise<CreateScheduleResult> {
    return notYet();
  }

  get(_access: TaskAccess, _scheduleId: string): Promise<Schedule> {
    return notYet();
  }

  list(_owner: string | undefined, _query: Omit<ListSchedulesQuery, 'owner'>): Promise<ScheduleList> {
    return notYet();
  }

  update(_access: TaskAccess, _scheduleId: string, _body: UpdateScheduleBody): Promise<Schedule> {
    return notYet();
  }

  pause(_access: TaskAccess, _scheduleId: string, _note: string | undefined): Promise<Schedule> {
    return notYet();
  }

  resume(_access: TaskAccess, _scheduleId: string, _note: string | undefined): Promise<Schedule> {
    return notYet();
  }

  trigger(_access: TaskAccess, _scheduleId: string, _body: TriggerScheduleBody): Promise<Schedule> {
    return notYet();
  }

  backfill(_access: TaskAccess, _scheduleId: string, _body: BackfillScheduleBody): Promise<Schedule> {
    return notYet();
  }

  delete(_access: TaskAccess, _scheduleId: string): Promise<void> {
    return notYet();
  }
}

function notYet(): never {
  throw new Error('schedules are not implemented yet');
}
