package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.delayedtasks.client.internal.Json;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.Objects;

/**
 * A past range whose run times each start one occurrence, with its nominal time: from {@code
 * startAt} (exclusive) to {@code endAt} (inclusive, not in the future). The overlap policy defaults
 * to the service's {@code allowAll}.
 */
public record BackfillScheduleRequest(Instant startAt, Instant endAt, OverlapPolicy overlap) {
  public BackfillScheduleRequest {
    Objects.requireNonNull(startAt, "startAt");
    Objects.requireNonNull(endAt, "endAt");
  }

  public static BackfillScheduleRequest of(Instant startAt, Instant endAt) {
    return new BackfillScheduleRequest(startAt, endAt, null);
  }

  public static BackfillScheduleRequest of(OffsetDateTime startAt, OffsetDateTime endAt) {
    return of(startAt.toInstant(), endAt.toInstant());
  }

  /** The same range with an overlap policy. */
  public BackfillScheduleRequest withOverlap(OverlapPolicy overlap) {
    return new BackfillScheduleRequest(startAt, endAt, overlap);
  }

  ObjectNode toBody() {
    ObjectNode body =
        Payloads.newObject()
            .put("startAt", Json.formatTime(startAt))
            .put("endAt", Json.formatTime(endAt));
    if (overlap != null) {
      body.put("overlap", overlap.wireName());
    }
    return body;
  }
}
