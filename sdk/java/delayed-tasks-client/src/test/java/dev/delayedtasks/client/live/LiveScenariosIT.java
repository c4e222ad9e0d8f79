package dev.delayedtasks.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.sun.net.httpserver.HttpServer;
import dev.delayedtasks.client.CreateScheduleRequest;
import dev.delayedtasks.client.CreateTaskRequest;
import dev.delayedtasks.client.CreateTaskResult;
import dev.delayedtasks.client.CreateTasksItem;
import dev.delayedtasks.client.DelayedTaskException;
import dev.delayedtasks.client.DelayedTasksClient;
import dev.delayedtasks.client.ErrorCode;
import dev.delayedtasks.client.ListSchedulesRequest;
import dev.delayedtasks.client.ListTasksRequest;
import dev.delayedtasks.client.OverlapPolicy;
import dev.delayedtasks.client.ReplayRequest;
import dev.delayedtasks.client.Schedule;
import dev.delayedtasks.client.ScheduleTaskRequest;
import dev.delayedtasks.client.Task;
import dev.delayedtasks.client.TaskStatus;
import dev.delayedtasks.client.When;
import dev.delayedtasks.client.callback.Callback;
import dev.delayedtasks.client.callback.CallbackHttpHandler;
import dev.delayedtasks.client.callback.CallbackReceiver;
import dev.delayedtasks.client.callback.PermanentException;
import dev.delayedtasks.client.callback.WebhookVerifier;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The scenarios of SDK.md against a running service (API + worker + Temporal): {@code DTS_URL},
 * optional {@code DTS_API_KEY} and {@code DTS_WEBHOOK_SECRET}. Skipped without {@code DTS_URL},
 * failed instead under {@code CI=true}. Callbacks go to a loopback JDK {@code HttpServer} that
 * serves them through this SDK's {@link CallbackReceiver}.
 */
class LiveScenariosIT {
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final Duration DELIVERY_TIMEOUT = Duration.ofSeconds(90);

  private static DelayedTasksClient client;
  private static HttpServer receiverServer;
  private static String callbackUrl;
  private static final List<Callback> delivered = new CopyOnWriteArrayList<>();
  private static final List<Map<String, String>> deliveredHeaders = new CopyOnWriteArrayList<>();
  private static boolean signed;

  @BeforeAll
  static void connect() throws IOException {
    String url = System.getenv("DTS_URL");
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        fail("DTS_URL is not set under CI=true: the live scenarios must run");
      }
      return; // each test is skipped by needsService()
    }
    client = DelayedTasksClient.builder().baseUrl(url).apiKey(System.getenv("DTS_API_KEY")).build();

    String secret = System.getenv("DTS_WEBHOOK_SECRET");
    signed = secret != null && !secret.isBlank();
    CallbackReceiver receiver =
        CallbackReceiver.builder()
            .verifier(signed ? WebhookVerifier.builder().secret(secret).build() : null)
            .allowUnsigned(!signed)
            .handler("java.live.deliver", delivered::add)
            .handler(
                "java.live.replay",
                callback -> {
                  if (!callback.payload().path("fixed").asBoolean(false)) {
                    throw new PermanentException("payload not fixed yet");
                  }
                  delivered.add(callback);
                })
            .build();
    receiverServer =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    CallbackHttpHandler endpoint = new CallbackHttpHandler(receiver);
    receiverServer.createContext(
        "/callback",
        exchange -> {
          Map<String, String> headers = new HashMap<>();
          exchange.getRequestHeaders().forEach((k, v) -> headers.put(k, v.get(0)));
          deliveredHeaders.add(headers);
          endpoint.handle(exchange);
        });
    receiverServer.start();
    callbackUrl = "http://127.0.0.1:" + receiverServer.getAddress().getPort() + "/callback";
  }

  @BeforeEach
  void needsService() {
    Assumptions.assumeTrue(client != null, "DTS_URL is not set: live scenarios skipped");
  }

  @AfterAll
  static void stop() {
    if (receiverServer != null) {
      receiverServer.stop(0);
    }
  }

  private static String id(String name) {
    return "java-" + RUN + "-" + name;
  }

  private static CreateTaskRequest.Builder later(String taskId) {
    return CreateTaskRequest.builder()
        .taskType("java.live.later")
        .taskId(taskId)
        .payload(Map.of("orderId", taskId))
        .when(When.after(Duration.ofHours(1)))
        .callbackUrl(callbackUrl);
  }

  private static Task awaitStatus(String taskId, TaskStatus status) throws InterruptedException {
    Instant deadline = Instant.now().plus(DELIVERY_TIMEOUT);
    Task task = client.status(taskId);
    while (task.summary().status() != status) {
      if (Instant.now().isAfter(deadline)) {
        fail(
            "task "
                + taskId
                + " stayed "
                + task.summary().status()
                + ", never "
                + status
                + ": "
                + task);
      }
      Thread.sleep(250);
      task = client.status(taskId);
    }
    return task;
  }

  /** The callback of the task once delivered; fails at once if the task fails instead. */
  private static Callback awaitDelivery(String taskId) throws InterruptedException {
    Instant deadline = Instant.now().plus(DELIVERY_TIMEOUT);
    for (; ; ) {
      for (Callback callback : delivered) {
        if (callback.taskId().equals(taskId)) {
          return callback;
        }
      }
      Task task = client.status(taskId);
      if (task.summary().status() == TaskStatus.FAILED) {
        fail(
            "task " + taskId + " failed instead of being delivered: " + task.summary().lastError());
      }
      if (Instant.now().isAfter(deadline)) {
        fail("task " + taskId + " not delivered within " + DELIVERY_TIMEOUT + ": " + task);
      }
      Thread.sleep(100);
    }
  }

  @Test
  void createGetCancel() {
    String taskId = id("cancel");
    CreateTaskResult created = client.create(later(taskId).build());
    assertTrue(created.created());
    assertEquals(TaskStatus.SCHEDULED, created.task().summary().status());

    Task fetched = client.status(taskId);
    assertEquals(taskId, fetched.summary().taskId());
    assertEquals("java.live.later", fetched.summary().taskType());
    assertEquals(taskId, fetched.payload().get("orderId").asText());

    assertEquals(TaskStatus.CANCELLED, client.cancel(taskId).summary().status());
    assertEquals(TaskStatus.CANCELLED, client.status(taskId).summary().status());
  }

  @Test
  void createTasksAnswersEachItemInOrder() {
    String a = id("batch-a");
    String c = id("batch-c");
    CreateTaskRequest generatedId =
        CreateTaskRequest.builder()
            .taskType("java.live.later")
            .payload(Map.of("orderId", "generated"))
            .when(When.after(Duration.ofHours(1)))
            .callbackUrl(callbackUrl)
            .build();
    List<CreateTasksItem> items =
        client.createTasks(
            List.of(
                later(a).build(),
                generatedId,
                later(c).taskType("Not A Type!").build(),
                later(a).payload(Map.of("orderId", "other")).build()));

    assertEquals(4, items.size());
    assertTrue(items.get(0).created());
    assertEquals(a, items.get(0).task().summary().taskId());
    assertTrue(items.get(1).created());
    assertEquals(ErrorCode.INVALID_ARGUMENT, items.get(2).error().code());
    assertEquals(400, items.get(2).error().status());
    assertEquals(ErrorCode.TASK_CONFLICT, items.get(3).error().code());
    assertEquals(409, items.get(3).error().status());
    for (int i = 0; i < items.size(); i++) {
      assertEquals(i, items.get(i).index());
    }
    String generated = items.get(1).taskId();
    assertEquals(4, UUID.fromString(generated).version());
    assertEquals(TaskStatus.SCHEDULED, client.status(generated).summary().status());
    DelayedTaskException absent = assertThrows(DelayedTaskException.class, () -> client.status(c));
    assertEquals(ErrorCode.TASK_NOT_FOUND, absent.code());

    CreateTasksItem again = client.createTasks(List.of(later(a).build())).get(0);
    assertTrue(again.isSuccess());
    assertFalse(again.created());
    client.cancel(a);
    client.cancel(generated);
  }

  @Test
  void createIsIdempotentOnTheTaskIdAndConflictsOnAnotherSpec() {
    String taskId = id("idem");
    assertTrue(client.create(later(taskId).build()).created());
    CreateTaskResult again = client.create(later(taskId).build());
    assertFalse(again.created());
    assertEquals(taskId, again.task().summary().taskId());

    DelayedTaskException conflict =
        assertThrows(
            DelayedTaskException.class,
            () -> client.create(later(taskId).payload(Map.of("orderId", "other")).build()));
    assertEquals(ErrorCode.TASK_CONFLICT, conflict.code());
    assertEquals(409, conflict.status());
    client.cancel(taskId);
  }

  @Test
  void aWrongApiKeyIsRefusedAndCreatesNothing() {
    String key = System.getenv("DTS_API_KEY");
    Assumptions.assumeTrue(key != null && !key.isBlank(), "authentication is off in this stack");
    String taskId = id("intruder");
    DelayedTasksClient intruder =
        DelayedTasksClient.builder().baseUrl(System.getenv("DTS_URL")).apiKey(key + "x").build();

    DelayedTaskException refused =
        assertThrows(DelayedTaskException.class, () -> intruder.create(later(taskId).build()));

    assertEquals(ErrorCode.UNAUTHENTICATED, refused.code());
    assertEquals(401, refused.status());
    DelayedTaskException missing =
        assertThrows(DelayedTaskException.class, () -> client.status(taskId));
    assertEquals(ErrorCode.TASK_NOT_FOUND, missing.code());
  }

  @Test
  void reschedule() {
    String taskId = id("resched");
    client.create(later(taskId).build());
    Instant newTime = Instant.now().plus(2, ChronoUnit.HOURS).truncatedTo(ChronoUnit.MILLIS);

    Task moved = client.reschedule(taskId, When.at(newTime));

    assertEquals(newTime, moved.summary().executeAt());
    assertEquals(newTime, client.status(taskId).summary().executeAt());
    assertEquals(TaskStatus.SCHEDULED, client.status(taskId).summary().status());
    client.cancel(taskId);
  }

  @Test
  void aDueTaskIsDeliveredToAHandlerBuiltWithThisSdk() throws Exception {
    String taskId = id("deliver");
    BigInteger big = new BigInteger("9007199254740991");
    client.create(
        CreateTaskRequest.builder()
            .taskType("java.live.deliver")
            .taskId(taskId)
            .payload(Map.of("orderId", taskId, "amount", big, "ratio", 0.25))
            .when(When.after(Duration.ofMillis(500)))
            .callbackUrl(callbackUrl)
            .build());

    Callback callback = awaitDelivery(taskId);

    assertEquals("java.live.deliver", callback.taskType());
    assertEquals(taskId, callback.payload().get("orderId").asText());
    assertEquals(big, callback.payload().get("amount").bigIntegerValue());
    assertEquals(0.25, callback.payload().get("ratio").doubleValue());
    assertEquals(1, callback.attempt());
    assertNotNull(callback.executeAt());
    awaitStatus(taskId, TaskStatus.SUCCEEDED);
    if (signed) {
      assertTrue(
          deliveredHeaders.stream().anyMatch(h -> h.containsKey("Webhook-signature")),
          "signed deliveries carry webhook-signature");
    }
  }

  @Test
  void aPermanentlyFailedTaskIsReplayedWithAnEditedPayload() throws Exception {
    String taskId = id("replay");
    client.create(
        CreateTaskRequest.builder()
            .taskType("java.live.replay")
            .taskId(taskId)
            .payload(Map.of("fixed", false))
            .when(When.after(Duration.ZERO))
            .maxRetries(0)
            .callbackUrl(callbackUrl)
            .build());

    Task failed = awaitStatus(taskId, TaskStatus.FAILED);
    assertNotNull(failed.summary().lastError());
    assertEquals(422, failed.summary().lastError().statusCode());

    client.replay(taskId, ReplayRequest.builder().payload(Map.of("fixed", true)).build());

    awaitStatus(taskId, TaskStatus.SUCCEEDED);
    Callback callback = awaitDelivery(taskId);
    assertTrue(callback.payload().get("fixed").asBoolean());
    assertTrue(
        client
            .listAll(ListTasksRequest.builder().taskType("java.live.replay").pageSize(1).build())
            .stream()
            .anyMatch(s -> s.taskId().equals(taskId)),
        "the list pages through to the task");
  }

  @Test
  void aScheduleIsCreatedPausedResumedTriggeredAndDeleted() throws Exception {
    String scheduleId = id("schedule");
    CreateScheduleRequest request =
        CreateScheduleRequest.builder()
            .scheduleId(scheduleId)
            .every("1h")
            .task(
                ScheduleTaskRequest.builder()
                    .taskType("java.live.deliver")
                    .payload(Map.of("n", 7))
                    .callbackUrl(callbackUrl)
                    .build())
            .build();
    assertTrue(client.createSchedule(request).created());
    assertFalse(client.createSchedule(request).created(), "the same spec again is a repeat");
    Schedule schedule = client.getSchedule(scheduleId);
    assertEquals("1h", schedule.summary().every());
    assertEquals(OverlapPolicy.SKIP, schedule.overlap());
    assertEquals(10, schedule.nextRunTimes().size());
    assertTrue(
        client
            .listSchedules(ListSchedulesRequest.builder().taskType("java.live.deliver").build())
            .schedules()
            .stream()
            .anyMatch(s -> s.scheduleId().equals(scheduleId)));
    Schedule paused = client.pauseSchedule(scheduleId, "paused by the SDK test");
    assertTrue(paused.summary().paused());
    assertEquals("paused by the SDK test", paused.summary().note());
    assertFalse(client.resumeSchedule(scheduleId, "resumed by the SDK test").summary().paused());

    client.triggerSchedule(scheduleId);
    Instant deadline = Instant.now().plus(DELIVERY_TIMEOUT);
    Callback occurrence = null;
    while (occurrence == null) {
      for (Callback callback : delivered) {
        if (callback.schedule() != null && callback.schedule().scheduleId().equals(scheduleId)) {
          occurrence = callback;
        }
      }
      if (occurrence == null && Instant.now().isAfter(deadline)) {
        fail("the triggered occurrence of " + scheduleId + " did not call back");
      }
      Thread.sleep(100);
    }
    String nominal = occurrence.schedule().scheduledAt().truncatedTo(ChronoUnit.SECONDS).toString();
    assertEquals(scheduleId + "-" + nominal, occurrence.taskId());

    client.deleteSchedule(scheduleId);
    DelayedTaskException gone =
        assertThrows(DelayedTaskException.class, () -> client.getSchedule(scheduleId));
    assertEquals("SCHEDULE_NOT_FOUND", gone.rawCode());
    assertEquals(404, gone.status());
  }
}
