package dev.delayedtasks.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.delayedtasks.client.CreateTaskRequest;
import dev.delayedtasks.client.DelayedTaskException;
import dev.delayedtasks.client.DelayedTasksClient;
import dev.delayedtasks.client.Delivery;
import dev.delayedtasks.client.ErrorCode;
import dev.delayedtasks.client.LeaseRequest;
import dev.delayedtasks.client.LeasedTask;
import dev.delayedtasks.client.Task;
import dev.delayedtasks.client.TaskStatus;
import dev.delayedtasks.client.When;
import dev.delayedtasks.client.callback.PermanentException;
import dev.delayedtasks.client.worker.LeaseHandler;
import dev.delayedtasks.client.worker.PullWorker;
import dev.delayedtasks.client.worker.PullWorkerOptions;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The pull worker shell against the running stack ({@code DTS_URL}): tasks with pull delivery
 * leased, extended, acked, nacked and released by {@link PullWorker}. Skipped without {@code
 * DTS_URL} (failed under {@code CI=true}), and skipped while the service has no lease routes.
 */
class PullWorkerLiveIT {
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static DelayedTasksClient client;
  private static String skipped;

  private final List<PullWorker> workers = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void connect() {
    String url = System.getenv("DTS_URL");
    if (url == null || url.isBlank()) {
      if ("true".equals(System.getenv("CI"))) {
        fail("DTS_URL is not set under CI=true: the live scenarios must run");
      }
      skipped = "DTS_URL is not set: live scenarios skipped";
      return;
    }
    client = DelayedTasksClient.builder().baseUrl(url).apiKey(System.getenv("DTS_API_KEY")).build();
    try {
      client.lease(LeaseRequest.builder().queues("java-live-probe-" + RUN).waitSeconds(0).build());
    } catch (DelayedTaskException e) {
      if (e.status() == 404 && e.code() == ErrorCode.NOT_FOUND) {
        skipped = "the service has no lease routes (POST /api/v1/leases answered 404)";
        return;
      }
      throw e;
    }
  }

  @BeforeEach
  void needsService() {
    Assumptions.assumeTrue(skipped == null, skipped);
  }

  @AfterEach
  void stopWorkers() {
    workers.forEach(w -> w.shutdown(Duration.ofSeconds(5)));
  }

  private String create(String type, String queue, int leaseSeconds, int maxRetries) {
    String taskId = "java-pull-" + RUN + "-" + UUID.randomUUID().toString().substring(0, 8);
    client.create(
        CreateTaskRequest.builder()
            .taskId(taskId)
            .taskType(type)
            .payload(Map.of("orderId", taskId))
            .when(When.after(Duration.ZERO))
            .delivery(Delivery.pull(queue, leaseSeconds))
            .maxRetries(maxRetries)
            .build());
    return taskId;
  }

  private PullWorker start(String type, String queue, int concurrency, LeaseHandler handler) {
    PullWorker worker =
        new PullWorker(
                client,
                PullWorkerOptions.builder()
                    .queues(queue)
                    .concurrency(concurrency)
                    .waitSeconds(2)
                    .workerIdentity("java-live/" + RUN)
                    .build())
            .handle(type, handler);
    workers.add(worker);
    CompletableFuture.runAsync(worker::run);
    return worker;
  }

  private static Task awaitStatus(String taskId, TaskStatus status) throws InterruptedException {
    Instant deadline = Instant.now().plus(TIMEOUT);
    Task task = client.status(taskId);
    while (task.status() != status && Instant.now().isBefore(deadline)) {
      Thread.sleep(200); // polling the task's status
      task = client.status(taskId);
    }
    assertEquals(status, task.status(), taskId);
    return task;
  }

  @Test
  void aHandlerThatReturnsIsAckedWithTheTaskAndItsIdempotencyKey() throws Exception {
    String queue = "java-live-ack-" + RUN;
    List<LeasedTask> seen = new CopyOnWriteArrayList<>();
    start("java.pull", queue, 2, seen::add);
    String taskId = create("java.pull", queue, 30, 2);
    Task task = awaitStatus(taskId, TaskStatus.SUCCEEDED);
    assertEquals(1, seen.size());
    assertEquals(taskId, seen.get(0).taskId());
    assertEquals(taskId, seen.get(0).payload().path("orderId").asText());
    assertNotNull(seen.get(0).idempotencyKey());
    assertFalse(seen.get(0).idempotencyKey().isEmpty());
    assertEquals(1, task.attempts());
  }

  @Test
  void aPermanentExceptionDeadLettersTheTaskWithItsReason() throws Exception {
    String queue = "java-live-permanent-" + RUN;
    start(
        "java.pull",
        queue,
        1,
        task -> {
          throw new PermanentException("no such order " + task.taskId());
        });
    String taskId = create("java.pull", queue, 30, 3);
    Task task = awaitStatus(taskId, TaskStatus.FAILED);
    assertEquals("no such order " + taskId, task.lastError().message());
  }

  @Test
  void anExceptionIsRetriedWithTheSameIdempotencyKey() throws Exception {
    String queue = "java-live-retry-" + RUN;
    List<LeasedTask> seen = new CopyOnWriteArrayList<>();
    start(
        "java.pull",
        queue,
        1,
        task -> {
          seen.add(task);
          if (task.attempt() == 1) {
            throw new IllegalStateException("first attempt fails");
          }
        });
    String taskId = create("java.pull", queue, 30, 3);
    awaitStatus(taskId, TaskStatus.SUCCEEDED);
    assertEquals(2, seen.size());
    assertEquals(seen.get(0).idempotencyKey(), seen.get(1).idempotencyKey());
    assertEquals(2, seen.get(1).attempt());
  }

  @Test
  void aHandlerLongerThanTheLeaseIsExtendedAndAcked() throws Exception {
    String queue = "java-live-extend-" + RUN;
    List<LeasedTask> seen = new CopyOnWriteArrayList<>();
    start(
        "java.pull",
        queue,
        1,
        task -> {
          seen.add(task);
          Thread.sleep(12_000); // the work outlasts the 5 s lease twice over
        });
    String taskId = create("java.pull", queue, 5, 0);
    Task task = awaitStatus(taskId, TaskStatus.SUCCEEDED);
    assertEquals(1, seen.size(), "never handed to another attempt");
    assertEquals(1, task.attempts());
  }

  @Test
  void shutdownReleasesWorkInFlightAndAnotherWorkerGetsItWithoutSpendingAnAttempt()
      throws Exception {
    String queue = "java-live-shutdown-" + RUN;
    CountDownLatch started = new CountDownLatch(1);
    PullWorker first =
        start(
            "java.pull",
            queue,
            1,
            task -> {
              started.countDown();
              Thread.sleep(60_000);
            });
    String taskId = create("java.pull", queue, 60, 0);
    assertTrue(started.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the first worker leased it");
    assertFalse(first.shutdown(Duration.ofMillis(500)), "still running: released");
    List<LeasedTask> seen = new CopyOnWriteArrayList<>();
    start("java.pull", queue, 1, seen::add);
    Task task = awaitStatus(taskId, TaskStatus.SUCCEEDED);
    assertEquals(1, seen.size());
    assertEquals(1, seen.get(0).attempt(), "the release spent no attempt");
    assertEquals(1, task.attempts());
  }
}
