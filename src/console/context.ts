/**
 * What the console's route modules share: the task domain, the configuration, and the helpers that
 * render a page, name the viewer, write an audit line and refuse what a key may not do. Built once
 * by src/console/plugin.ts, which also owns the session and the CSRF checks every route passes.
 */
import type { ValidateFunction } from 'ajv';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/environment.js';
import type { ScheduleService } from '../schedules/service.js';
import type { TaskService } from '../tasks/service.js';
import type { ChartCounts } from './charts/data.js';
import type { Viewer } from './views/layout.js';

export type Form = Record<string, string | undefined>;

export interface AuditFields {
  taskId?: string;
  scheduleId?: string;
  owner?: string;
  reason?: string;
  outcome: string;
  filter?: unknown;
  jobId?: string;
}

export interface ConsoleContext {
  tasks: TaskService;
  /** The schedule domain, when the API serves schedules. */
  schedules: ScheduleService | undefined;
  config: Readonly<Config>;
  /** The charts' counts, cached per scope for a short time. */
  charts: ChartCounts;
  /** The list query's schema check (coercing, with defaults), for filters typed into forms. */
  validateList: ValidateFunction;
  page(reply: FastifyReply, body: string, status?: number): FastifyReply;
  viewerOf(request: FastifyRequest, reply: FastifyReply): Viewer;
  audit(request: FastifyRequest, action: string, fields: AuditFields): void;
  /** 403 unless the viewer's key holds `scope`. */
  requireWrite(
    request: FastifyRequest,
    scope?: 'tasks:write' | 'schedules:read' | 'schedules:write' | 'admin',
  ): void;
  /** The form's reason, required for every action. */
  reasonOf(form: Form): string;
}
