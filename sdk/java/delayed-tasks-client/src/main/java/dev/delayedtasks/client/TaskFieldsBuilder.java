package dev.delayedtasks.client;

import java.util.Objects;

/**
 * The setters a {@link CreateTaskRequest.Builder} and a {@link ScheduleTaskRequest.Builder} share.
 * Each returns the concrete builder, so a chain reads as before. Package-private: callers see the
 * methods on the public builders.
 *
 * @param <B> the concrete builder
 */
abstract class TaskFieldsBuilder<B extends TaskFieldsBuilder<B>> {
  final TaskFields fields = new TaskFields();

  TaskFieldsBuilder() {}

  abstract B self();

  /** Lower-case name of the kind of task, e.g. {@code order.close}. */
  public B taskType(String taskType) {
    fields.taskType = Objects.requireNonNull(taskType, "taskType");
    return self();
  }

  /**
   * A JSON object: a {@code Map}, a Jackson {@code ObjectNode}, or a bean Jackson can write as an
   * object. Non-finite numbers and integers beyond ±(2^53−1) are refused before sending.
   */
  public B payload(Object payload) {
    fields.payload = payload;
    return self();
  }

  /** Absolute http(s) URL; may be omitted when the task type's policy has one. */
  public B callbackUrl(String callbackUrl) {
    fields.callbackUrl = callbackUrl;
    return self();
  }

  /**
   * Pull or broker delivery instead of a callback ({@code Delivery.pull()}): a worker leases the
   * task when it is due. Not with {@link #callbackUrl}.
   */
  public B delivery(Delivery delivery) {
    fields.delivery = delivery;
    return self();
  }

  /** Retries after the first attempt. */
  public B maxRetries(int maxRetries) {
    fields.maxRetries = maxRetries;
    return self();
  }

  /** Limit of one callback attempt, in milliseconds. */
  public B timeoutMs(int timeoutMs) {
    fields.timeoutMs = timeoutMs;
    return self();
  }

  /** Version of the payload schema. */
  public B payloadVersion(int payloadVersion) {
    fields.payloadVersion = payloadVersion;
    return self();
  }

  /** The caller's trace id, passed to the callback. */
  public B traceId(String traceId) {
    fields.traceId = traceId;
    return self();
  }

  /** 1 highest to 5 lowest. */
  public B priority(int priority) {
    fields.priority = priority;
    return self();
  }
}
