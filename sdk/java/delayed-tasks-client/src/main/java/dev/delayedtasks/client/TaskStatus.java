package dev.delayedtasks.client;

/** Where a task is in its life. */
public enum TaskStatus {
  /** Waiting for its time. */
  SCHEDULED,
  /** Callback in progress or waiting to retry. */
  RUNNING,
  SUCCEEDED,
  /** Dead letter: retries exhausted or a permanent error. */
  FAILED,
  CANCELLED,
  /** A status from a newer server. */
  UNKNOWN;

  static TaskStatus fromWire(String raw) {
    if (raw == null) {
      return UNKNOWN;
    }
    for (TaskStatus status : values()) {
      if (status.name().equals(raw)) {
        return status;
      }
    }
    return UNKNOWN;
  }
}
