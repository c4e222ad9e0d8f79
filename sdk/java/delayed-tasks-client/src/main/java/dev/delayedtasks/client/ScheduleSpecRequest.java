package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * What a create and an update of a schedule hold and send: the fields their {@link
 * ScheduleSpecBuilder} set and the task. Package-private: the two public requests extend it.
 */
abstract class ScheduleSpecRequest {
  private final ObjectNode spec;
  private final ScheduleTaskRequest task;

  /**
   * @param spec the fields set, copied here so that the builder may be used again
   * @param task the task, or null (an update that keeps the schedule's)
   */
  ScheduleSpecRequest(ObjectNode spec, ScheduleTaskRequest task) {
    this.spec = spec.deepCopy();
    this.task = task;
  }

  /**
   * The wire body; the task's payload, when there is a task, is checked first (INVALID_ARGUMENT,
   * nothing sent), at send time as a create's is.
   */
  ObjectNode toBody() {
    ObjectNode out = spec.deepCopy();
    if (task != null) {
      out.set("task", task.toBody());
    }
    return out;
  }
}
