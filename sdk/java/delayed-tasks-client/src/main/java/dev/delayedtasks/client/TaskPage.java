package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One page of a list.
 *
 * @param tasks the tasks, newest first
 * @param nextPageToken pass it as {@code pageToken} for the next page; null on the last page
 */
public record TaskPage(List<TaskSummary> tasks, String nextPageToken) {
  public TaskPage {
    tasks = List.copyOf(tasks);
  }

  static TaskPage from(JsonNode node) {
    List<TaskSummary> tasks = new ArrayList<>();
    for (JsonNode task : node.path("tasks")) {
      tasks.add(TaskSummary.from(task));
    }
    JsonNode token = node.get("nextPageToken");
    return new TaskPage(tasks, token == null || token.isNull() ? null : token.asText());
  }
}
