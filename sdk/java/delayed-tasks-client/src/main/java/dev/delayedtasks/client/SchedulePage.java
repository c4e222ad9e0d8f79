package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import dev.delayedtasks.client.internal.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * One page of schedules, by id.
 *
 * @param nextPageToken pass it as {@code pageToken} for the next page; null on the last page
 */
public record SchedulePage(List<ScheduleSummary> schedules, String nextPageToken) {
  public SchedulePage {
    schedules = List.copyOf(schedules);
  }

  static SchedulePage from(JsonNode node) {
    List<ScheduleSummary> schedules = new ArrayList<>();
    node.path("schedules").forEach(s -> schedules.add(ScheduleSummary.from(s)));
    return new SchedulePage(schedules, Json.text(node, "nextPageToken"));
  }
}
