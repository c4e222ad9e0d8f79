package dev.delayedtasks.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Client of the delayed-task HTTP API. Thread-safe; build one per service and share it.
 *
 * <pre>{@code
 * DelayedTasksClient client = DelayedTasksClient.builder()
 *     .baseUrl("http://127.0.0.1:3000")
 *     .apiKey(System.getenv("DTS_API_KEY"))
 *     .build();
 * CreateTaskResult result = client.create(CreateTaskRequest.builder()
 *     .taskType("order.close")
 *     .payload(Map.of("orderId", "10023"))
 *     .when(When.after(Duration.ofMinutes(30)))
 *     .build());
 * }</pre>
 *
 * <p>Every method throws {@link DelayedTaskException}: for an error answer, a check that failed
 * before sending (no request made), or a network failure after the retries.
 */
public final class DelayedTasksClient {
  private static final String TASKS = "/api/v1/tasks";
  private static final String SCHEDULES = "/api/v1/schedules";

  private final Transport transport;

  private DelayedTasksClient(Transport transport) {
    this.transport = transport;
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Creates a task. When the request has no task id, a UUID is generated before the first attempt
   * and reused on every retry, so a retried create never makes two tasks.
   *
   * @return the task, and whether this call created it (false: an idempotent repeat)
   */
  public CreateTaskResult create(CreateTaskRequest request) {
    Objects.requireNonNull(request, "request");
    Transport.Answer answer = transport.send("POST", TASKS, Map.of(), body(request));
    return new CreateTaskResult(Task.from(answer.body()), answer.status() == 201);
  }

  /**
   * Creates up to 100 tasks in one request ({@code POST /api/v1/tasks/batch}) and returns one
   * {@link CreateTasksItem} per request, in order: the task, or the exception a single {@link
   * #create} of that item would throw. An item refused by the checks before sending gets its {@code
   * INVALID_ARGUMENT} (status 0) and is not sent; the others still are.
   *
   * <p>Task ids are generated before the first attempt, so the whole request is retried like a
   * create (503, 429, network errors); an item answered with its own error is never re-sent. A
   * failure of the whole request (401, 403, a 400 for the list itself, other 5xx) is thrown.
   */
  public List<CreateTasksItem> createTasks(List<CreateTaskRequest> requests) {
    Objects.requireNonNull(requests, "requests");
    CreateTasksItem[] results = new CreateTasksItem[requests.size()];
    ArrayNode bodies = Payloads.newObject().arrayNode();
    List<Integer> sent = new ArrayList<>(); // sent.get(position in bodies) = index in requests
    for (int i = 0; i < requests.size(); i++) {
      CreateTaskRequest request = Objects.requireNonNull(requests.get(i), "requests[" + i + "]");
      try {
        bodies.add(body(request));
        sent.add(i);
      } catch (DelayedTaskException e) {
        results[i] = CreateTasksItem.failed(i, request.taskId(), e);
      }
    }
    if (!requests.isEmpty() && sent.isEmpty()) {
      return List.of(results);
    }
    ObjectNode envelope = Payloads.newObject();
    envelope.set("tasks", bodies);
    Transport.Answer answer = transport.send("POST", TASKS + "/batch", Map.of(), envelope);
    for (JsonNode item : answer.body().path("results")) {
      int position = item.path("index").asInt(-1);
      if (position < 0 || position >= sent.size()) {
        continue;
      }
      int index = sent.get(position);
      String taskId = bodies.get(position).path("taskId").asText();
      int status = item.path("status").asInt();
      results[index] =
          item.hasNonNull("error")
              ? CreateTasksItem.failed(
                  index,
                  taskId,
                  Transport.errorFrom(
                      item.get("error"), status, answer.requestId(), "HTTP " + status))
              : CreateTasksItem.succeeded(
                  index, taskId, Task.from(item.path("task")), status == 201);
    }
    for (int position = 0; position < sent.size(); position++) {
      int index = sent.get(position);
      if (results[index] == null) {
        DelayedTaskException missing =
            new DelayedTaskException(
                ErrorCode.UNKNOWN.name(),
                "the response has no result for this item",
                answer.status(),
                List.of(),
                answer.requestId(),
                null);
        results[index] =
            CreateTasksItem.failed(index, bodies.get(position).path("taskId").asText(), missing);
      }
    }
    return List.of(results);
  }

  /** The wire body; a UUID is generated when the request has no task id. Checks first. */
  private static ObjectNode body(CreateTaskRequest request) {
    return request.toBody(
        request.taskId() != null ? request.taskId() : UUID.randomUUID().toString());
  }

  /** The task's current state, closed tasks included. */
  public Task status(String taskId) {
    return Task.from(transport.send("GET", taskPath(taskId, ""), Map.of(), null).body());
  }

  /** Cancels the task; cancelling a cancelled task again is a no-op. */
  public Task cancel(String taskId) {
    return Task.from(transport.send("POST", taskPath(taskId, "/cancel"), Map.of(), null).body());
  }

  /**
   * Moves a {@code SCHEDULED} task to a new time: {@code When.after(...)} or {@code When.at(...)}.
   */
  public Task reschedule(String taskId, When when) {
    Objects.requireNonNull(when, "when");
    When.check(when, true);
    ObjectNode body = Payloads.newObject();
    when.writeTo(body);
    return Task.from(
        transport.send("POST", taskPath(taskId, "/reschedule"), Map.of(), body).body());
  }

  /** Re-runs a {@code FAILED} or {@code CANCELLED} task as a new run. */
  public Task replay(String taskId, ReplayRequest request) {
    Objects.requireNonNull(request, "request");
    return Task.from(
        transport.send("POST", taskPath(taskId, "/replay"), Map.of(), request.toBody()).body());
  }

  /** Re-runs a task with its own payload and settings, now. */
  public Task replay(String taskId) {
    return replay(taskId, ReplayRequest.empty());
  }

  /** One page of tasks, newest first. */
  public TaskPage list(ListTasksRequest request) {
    Objects.requireNonNull(request, "request");
    return TaskPage.from(transport.send("GET", TASKS, request.query(), null).body());
  }

  /**
   * Every task matching the filters, fetching pages lazily as iteration goes on and following
   * {@code nextPageToken} until the last page. Iterate it or call {@link TaskPager#stream()}.
   */
  public TaskPager listAll(ListTasksRequest request) {
    Objects.requireNonNull(request, "request");
    return new TaskPager(this::list, request);
  }

  // ------------------------------------------------------------------ schedules

  /**
   * Creates a recurring task. Each occurrence is one task, its id {@code <scheduleId>-<nominal
   * time>}.
   *
   * @return the schedule, and whether this call created it (false: the same id and spec existed)
   */
  public CreateScheduleResult createSchedule(CreateScheduleRequest request) {
    Objects.requireNonNull(request, "request");
    Transport.Answer answer = transport.send("POST", SCHEDULES, Map.of(), request.toBody());
    return new CreateScheduleResult(Schedule.from(answer.body()), answer.status() == 201);
  }

  /** The schedule with its next run times (from Temporal) and recent occurrences. */
  public Schedule getSchedule(String scheduleId) {
    return schedule("GET", scheduleId, "", null);
  }

  /** One page of schedules, by id. */
  public SchedulePage listSchedules(ListSchedulesRequest request) {
    Objects.requireNonNull(request, "request");
    return SchedulePage.from(transport.send("GET", SCHEDULES, request.query(), null).body());
  }

  /** Changes a schedule; the service checks the result as a create before it takes effect. */
  public Schedule updateSchedule(String scheduleId, UpdateScheduleRequest request) {
    Objects.requireNonNull(request, "request");
    return schedule("PATCH", scheduleId, "", request.toBody());
  }

  /** Pauses a schedule: no run starts until it is resumed. The note is kept with it. */
  public Schedule pauseSchedule(String scheduleId, String note) {
    return schedule("POST", scheduleId, "/pause", noteBody(note));
  }

  public Schedule pauseSchedule(String scheduleId) {
    return pauseSchedule(scheduleId, null);
  }

  /** Resumes a paused schedule; runs missed while paused do not start. */
  public Schedule resumeSchedule(String scheduleId, String note) {
    return schedule("POST", scheduleId, "/resume", noteBody(note));
  }

  public Schedule resumeSchedule(String scheduleId) {
    return resumeSchedule(scheduleId, null);
  }

  /** Starts one occurrence now, also when paused, with this overlap policy. */
  public Schedule triggerSchedule(String scheduleId, OverlapPolicy overlap) {
    ObjectNode body = Payloads.newObject();
    if (overlap != null) {
      body.put("overlap", overlap.wireName());
    }
    return schedule("POST", scheduleId, "/trigger", body);
  }

  /** Starts one occurrence now (the service's overlap default for a trigger: allowAll). */
  public Schedule triggerSchedule(String scheduleId) {
    return triggerSchedule(scheduleId, null);
  }

  /** Starts one occurrence per run time of the spec in a past range, each with its nominal time. */
  public Schedule backfillSchedule(String scheduleId, BackfillScheduleRequest request) {
    Objects.requireNonNull(request, "request");
    return schedule("POST", scheduleId, "/backfill", request.toBody());
  }

  /** Deletes a schedule; occurrences already started run on as tasks. */
  public void deleteSchedule(String scheduleId) {
    transport.send("DELETE", schedulePath(scheduleId, ""), Map.of(), null);
  }

  private Schedule schedule(String method, String scheduleId, String suffix, ObjectNode body) {
    return Schedule.from(
        transport.send(method, schedulePath(scheduleId, suffix), Map.of(), body).body());
  }

  private static ObjectNode noteBody(String note) {
    ObjectNode body = Payloads.newObject();
    if (note != null) {
      body.put("note", note);
    }
    return body;
  }

  private static String schedulePath(String scheduleId, String suffix) {
    Objects.requireNonNull(scheduleId, "scheduleId");
    return SCHEDULES + "/" + PathEncoding.encode(scheduleId) + suffix;
  }

  private static String taskPath(String taskId, String suffix) {
    Objects.requireNonNull(taskId, "taskId");
    return TASKS + "/" + PathEncoding.encode(taskId) + suffix;
  }

  /** Builds a {@link DelayedTasksClient}; only the base URL is required. */
  public static final class Builder {
    private String baseUrl;
    private String apiKey;
    private Duration timeout = Duration.ofSeconds(10);
    private RetryPolicy retryPolicy = RetryPolicy.defaults();
    private HttpClient httpClient;
    private Transport.Sleeper sleeper = duration -> Thread.sleep(duration.toMillis());

    private Builder() {}

    /** The service's base URL, e.g. {@code https://tasks.internal}; a trailing slash is fine. */
    public Builder baseUrl(String baseUrl) {
      this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
      return this;
    }

    public Builder baseUrl(URI baseUrl) {
      return baseUrl(Objects.requireNonNull(baseUrl, "baseUrl").toString());
    }

    /** Sent as {@code Authorization: Bearer <key>}; null or blank sends nothing. */
    public Builder apiKey(String apiKey) {
      this.apiKey = apiKey == null || apiKey.isBlank() ? null : apiKey;
      return this;
    }

    /** Limit of one HTTP attempt (default 10 s). */
    public Builder timeout(Duration timeout) {
      this.timeout = Objects.requireNonNull(timeout, "timeout");
      return this;
    }

    public Builder retryPolicy(RetryPolicy retryPolicy) {
      this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
      return this;
    }

    /** The {@link HttpClient} to send with (default: a new HTTP/1.1 client). */
    public Builder httpClient(HttpClient httpClient) {
      this.httpClient = Objects.requireNonNull(httpClient, "httpClient");
      return this;
    }

    Builder sleeper(Transport.Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    public DelayedTasksClient build() {
      if (baseUrl == null || baseUrl.isBlank()) {
        throw new IllegalStateException("baseUrl is required");
      }
      URI parsed = URI.create(baseUrl);
      if (!"http".equals(parsed.getScheme()) && !"https".equals(parsed.getScheme())) {
        throw new IllegalArgumentException("baseUrl must be http(s): " + baseUrl);
      }
      String base = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
      HttpClient http =
          httpClient != null
              ? httpClient
              : HttpClient.newBuilder()
                  .version(HttpClient.Version.HTTP_1_1)
                  .connectTimeout(timeout)
                  .build();
      return new DelayedTasksClient(
          new Transport(base, apiKey, timeout, retryPolicy, http, sleeper));
    }
  }
}
