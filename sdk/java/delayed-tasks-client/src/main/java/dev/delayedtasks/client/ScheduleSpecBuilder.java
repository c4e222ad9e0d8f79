package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;

/**
 * The timing and policies a create and an update share. Only the fields set are sent, so the
 * service's defaults apply (time zone {@code UTC}, overlap {@code skip}, catch-up window {@code
 * 1h}, pause on failure off). Times are sent in UTC with milliseconds.
 *
 * @param <B> the concrete builder
 */
public abstract class ScheduleSpecBuilder<B extends ScheduleSpecBuilder<B>> {
  final ObjectNode body = Payloads.newObject();
  ScheduleTaskRequest task;

  ScheduleSpecBuilder() {}

  abstract B self();

  /** Five fields or {@code @daily}, {@code @hourly}..., read in the time zone. */
  public B cron(String cron) {
    body.put("cron", Objects.requireNonNull(cron, "cron"));
    return self();
  }

  /** A fixed interval: {@code 30s}, {@code 15m}, {@code 1h30m}, {@code 1d}. */
  public B every(String every) {
    body.put("every", Objects.requireNonNull(every, "every"));
    return self();
  }

  /** Only with {@code every}: offset of each run from the interval boundary. */
  public B phase(String phase) {
    body.put("phase", Objects.requireNonNull(phase, "phase"));
    return self();
  }

  /** The IANA time zone the cron fields are read in. */
  public B timeZone(String timeZone) {
    body.put("timeZone", Objects.requireNonNull(timeZone, "timeZone"));
    return self();
  }

  public B startAt(Instant startAt) {
    body.put("startAt", Json.formatTime(Objects.requireNonNull(startAt, "startAt")));
    return self();
  }

  public B startAt(OffsetDateTime startAt) {
    return startAt(Objects.requireNonNull(startAt, "startAt").toInstant());
  }

  public B endAt(Instant endAt) {
    body.put("endAt", Json.formatTime(Objects.requireNonNull(endAt, "endAt")));
    return self();
  }

  public B endAt(OffsetDateTime endAt) {
    return endAt(Objects.requireNonNull(endAt, "endAt").toInstant());
  }

  /** Run at most this many times (1 or more). */
  public B maxRuns(int maxRuns) {
    body.put("maxRuns", maxRuns);
    return self();
  }

  /** Each run starts up to this long after its nominal time ({@code 30s}). */
  public B jitter(String jitter) {
    body.put("jitter", Objects.requireNonNull(jitter, "jitter"));
    return self();
  }

  public B overlap(OverlapPolicy overlap) {
    body.put("overlap", Objects.requireNonNull(overlap, "overlap").wireName());
    return self();
  }

  /** How late a run missed during an outage may still start ({@code 1h}). */
  public B catchupWindow(String catchupWindow) {
    body.put("catchupWindow", Objects.requireNonNull(catchupWindow, "catchupWindow"));
    return self();
  }

  public B pauseOnFailure(boolean pauseOnFailure) {
    body.put("pauseOnFailure", pauseOnFailure);
    return self();
  }

  /** What each occurrence runs (an update replaces it as a whole). */
  public B task(ScheduleTaskRequest task) {
    this.task = Objects.requireNonNull(task, "task");
    return self();
  }
}
