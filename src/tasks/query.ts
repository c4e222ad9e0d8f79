/**
 * The visibility query builder: the only code that writes list and count queries. Attribute names
 * come from a fixed list and every value is quoted here, after a check that it cannot leave its
 * quotes (values are checked by the contract's patterns before, this is the second line).
 */
import { SEARCH_ATTRIBUTES, TASK_WORKFLOW_TYPE } from '../shared/constants.js';
import { typeQueuePrefix } from '../shared/task-queues.js';
import { DEFAULT_OWNER } from '../shared/owner.js';
import type { TaskStatus } from '../shared/task.js';

/** Every attribute a query of ours names: Temporal's own and this service's search attributes. */
const ATTRIBUTES = {
  workflowType: 'WorkflowType',
  taskQueue: 'TaskQueue',
  workflowId: 'WorkflowId',
  runId: 'RunId',
  executionStatus: 'ExecutionStatus',
  closeTime: 'CloseTime',
  taskType: SEARCH_ATTRIBUTES.taskType.name,
  taskStatus: SEARCH_ATTRIBUTES.taskStatus.name,
  executeAt: SEARCH_ATTRIBUTES.executeAt.name,
  owner: SEARCH_ATTRIBUTES.owner.name,
  /** Set by Temporal on schedules. */
  schedulePaused: 'TemporalSchedulePaused',
} as const;
export type Attribute = keyof typeof ATTRIBUTES;

/** A value in single quotes; refused when it could end them or hides a control character. */
export function quote(value: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what this refuses
  if (/['"\\\u0000-\u001f\u007f]/.test(value)) {
    throw new Error(`a visibility query value may not contain quotes, backslashes or control characters`);
  }
  return `'${value}'`;
}

const time = (ms: number) => quote(new Date(ms).toISOString());

/** A query under construction: clauses joined by AND, in the order they were added. */
export class VisibilityQuery {
  private constructor(private readonly clauses: readonly string[]) {}

  /**
   * This service's tasks: those on the shared workflow queue (started before workflow shape v2) and
   * those on a task type's own queue (v2).
   */
  static tasks(sharedQueue: string): VisibilityQuery {
    const { workflowType, taskQueue } = ATTRIBUTES;
    return new VisibilityQuery([
      `${workflowType} = ${quote(TASK_WORKFLOW_TYPE)}`,
      `(${taskQueue} = ${quote(sharedQueue)} OR ${taskQueue} STARTS_WITH ${quote(typeQueuePrefix(sharedQueue))})`,
    ]);
  }

  /** This service's schedules: their `Owner` is always set (other schedules of the namespace have none). */
  static schedules(): VisibilityQuery {
    return new VisibilityQuery([`${ATTRIBUTES.owner} IS NOT NULL`]);
  }

  private and(clause: string): VisibilityQuery {
    return new VisibilityQuery([...this.clauses, clause]);
  }

  is(attribute: Attribute, value: string): VisibilityQuery {
    return this.and(`${ATTRIBUTES[attribute]} = ${quote(value)}`);
  }

  flag(attribute: Attribute, value: boolean): VisibilityQuery {
    return this.and(`${ATTRIBUTES[attribute]} = ${value ? 'true' : 'false'}`);
  }

  isNot(attribute: Attribute, value: string): VisibilityQuery {
    return this.and(`${ATTRIBUTES[attribute]} != ${quote(value)}`);
  }

  oneOf(attribute: Attribute, values: readonly string[]): VisibilityQuery {
    return this.and(`${ATTRIBUTES[attribute]} IN (${values.map(quote).join(', ')})`);
  }

  noneOf(attribute: Attribute, values: readonly string[]): VisibilityQuery {
    return values.length === 0
      ? this
      : this.and(`${ATTRIBUTES[attribute]} NOT IN (${values.map(quote).join(', ')})`);
  }

  startsWith(attribute: Attribute, prefix: string): VisibilityQuery {
    return this.and(`${ATTRIBUTES[attribute]} STARTS_WITH ${quote(prefix)}`);
  }

  /**
   * `attribute` equals one of `patterns`, or starts with what precedes the `*` of a pattern ending in
   * one (a key's task types: `order.close`, `order.*`; a keys file holds at least one).
   */
  matchesAny(attribute: Attribute, patterns: readonly string[]): VisibilityQuery {
    const name = ATTRIBUTES[attribute];
    if (patterns.length === 0) throw new Error('matchesAny needs at least one pattern');
    const alternatives = patterns.map((pattern) =>
      pattern.endsWith('*')
        ? `${name} STARTS_WITH ${quote(pattern.slice(0, -1))}`
        : `${name} = ${quote(pattern)}`,
    );
    return this.and(`(${alternatives.join(' OR ')})`);
  }

  /** `from <= attribute < to` (ms); either end may be open. */
  between(attribute: Attribute, from: number | undefined, to: number | undefined): VisibilityQuery {
    const name = ATTRIBUTES[attribute];
    const clauses = [
      ...(from === undefined ? [] : [`${name} >= ${time(from)}`]),
      ...(to === undefined ? [] : [`${name} < ${time(to)}`]),
    ];
    return new VisibilityQuery([...this.clauses, ...clauses]);
  }

  /** Open workflows only (a FAILED task's run is closed; SCHEDULED and RUNNING ones are open). */
  open(): VisibilityQuery {
    return this.is('executionStatus', 'Running');
  }

  closed(): VisibilityQuery {
    return this.isNot('executionStatus', 'Running');
  }

  status(status: TaskStatus): VisibilityQuery {
    return this.is('taskStatus', status);
  }

  /** One owner's tasks. Tasks started before owners existed have no `Owner` and belong to `default`. */
  owner(owner: string): VisibilityQuery {
    const name = ATTRIBUTES.owner;
    return this.and(
      owner === DEFAULT_OWNER
        ? `(${name} = ${quote(DEFAULT_OWNER)} OR ${name} IS NULL)`
        : `${name} = ${quote(owner)}`,
    );
  }

  toString(): string {
    return this.clauses.join(' AND ');
  }
}
