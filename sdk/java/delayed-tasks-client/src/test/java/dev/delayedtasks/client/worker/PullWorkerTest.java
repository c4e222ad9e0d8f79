package dev.delayedtasks.client.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.delayedtasks.client.DelayedTasksClient;
import dev.delayedtasks.client.LeasedTask;
import dev.delayedtasks.client.callback.InMemoryIdempotencyStore;
import dev.delayedtasks.client.callback.PermanentException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Unit tests of the worker shell's behaviour against an in-process fake of the lease wire (a JDK
 * {@code HttpServer} speaking conformance/pull/README.md); the live suite runs it on the stack.
 */
class PullWorkerTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private HttpServer server;
  private final BlockingQueue<ObjectNode> ready = new LinkedBlockingQueue<>();
  private final List<String> calls = new CopyOnWriteArrayList<>(); // "verb token [body]"
  private final List<Integer> maxes = new CopyOnWriteArrayList<>();
  private DelayedTasksClient client;
  private PullWorker worker;
  private Thread running;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/api/v1/leases",
        exchange -> {
          JsonNode body = JSON.readTree(exchange.getRequestBody());
          String path = exchange.getRequestURI().getPath();
          ObjectNode answer = JSON.createObjectNode();
          if (path.equals("/api/v1/leases")) {
            int max = body.path("max").asInt(1);
            maxes.add(max);
            var leases = answer.putArray("leases");
            try {
              ObjectNode first = ready.poll(200, TimeUnit.MILLISECONDS); // a short long poll
              if (first != null) {
                leases.add(first);
                while (leases.size() < max && !ready.isEmpty()) {
                  leases.add(ready.poll());
                }
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          } else {
            String verb = path.substring(path.lastIndexOf('/') + 1);
            String token = body.path("leaseToken").asText();
            calls.add(
                verb
                    + " "
                    + token
                    + (verb.equals("nack")
                        ? " "
                            + body.path("retryable").asBoolean()
                            + " "
                            + body.path("reason").asText()
                        : ""));
            answer.put("taskId", token).put("status", verb.equals("ack") ? "SUCCEEDED" : "RUNNING");
            if (verb.equals("extend")) {
              answer.put("leaseExpiresAt", Instant.now().plusSeconds(3).toString());
            }
          }
          byte[] bytes = JSON.writeValueAsBytes(answer);
          exchange.getResponseHeaders().set("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.setExecutor(java.util.concurrent.Executors.newFixedThreadPool(8));
    server.start();
    client =
        DelayedTasksClient.builder()
            .baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
            .build();
  }

  @AfterEach
  void stop() throws InterruptedException {
    if (worker != null) {
      worker.shutdown(Duration.ofSeconds(1));
    }
    if (running != null) {
      running.join(5000);
    }
    server.stop(0);
  }

  /** A lease of {@code leaseSeconds} for a task of the type. */
  private void offer(String token, String taskType, String key, int leaseSeconds) {
    ObjectNode lease = JSON.createObjectNode();
    lease.put("leaseToken", token);
    lease.put("leaseExpiresAt", Instant.now().plusSeconds(leaseSeconds).toString());
    ObjectNode task = lease.putObject("task");
    task.put("taskId", "task-" + token).put("taskType", taskType).put("queue", taskType);
    task.putObject("payload").put("orderId", "10023");
    task.put("payloadVersion", 1).put("executeAt", "2026-12-05T09:59:00.000Z").put("attempt", 1);
    task.put("idempotencyKey", key).putNull("traceId");
    ready.add(lease);
  }

  private void startWorker(PullWorkerOptions.Builder options, String type, LeaseHandler handler) {
    worker = new PullWorker(client, options.waitSeconds(1).build()).handle(type, handler);
    running = new Thread(worker::run);
    running.start();
  }

  private void awaitCalls(int n) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (calls.size() < n && System.nanoTime() < deadline) {
      Thread.sleep(10); // polling what the fake server recorded
    }
    assertTrue(calls.size() >= n, "calls: " + calls);
  }

  @Test
  void aHandlerThatReturnsIsAckedAndGetsTheTaskAndItsIdempotencyKey() throws Exception {
    List<LeasedTask> seen = new CopyOnWriteArrayList<>();
    offer("t1", "order.close", "key-1", 60);
    startWorker(PullWorkerOptions.builder(), "order.close", seen::add);
    awaitCalls(1);
    assertEquals(List.of("ack t1"), calls);
    assertEquals("key-1", seen.get(0).idempotencyKey());
    assertEquals("10023", seen.get(0).payload().path("orderId").asText());
    assertEquals("task-t1", seen.get(0).taskId());
  }

  @Test
  void anExceptionIsARetryableNackWithItsMessageAndPermanentIsNot() throws Exception {
    offer("t1", "order.close", "key-1", 60);
    offer("t2", "order.close", "key-2", 60);
    startWorker(
        PullWorkerOptions.builder().concurrency(1),
        "order.close",
        task -> {
          if (task.taskId().equals("task-t1")) {
            throw new IllegalStateException("db down");
          }
          throw new PermanentException("no such order");
        });
    awaitCalls(2);
    assertEquals(List.of("nack t1 true db down", "nack t2 false no such order"), calls);
  }

  @Test
  void aTaskTypeWithoutHandlerIsNackedNotRetryable() throws Exception {
    offer("t1", "other.type", "key-1", 60);
    startWorker(PullWorkerOptions.builder().queues("other.type"), "order.close", task -> {});
    awaitCalls(1);
    assertEquals(List.of("nack t1 false no handler for task type"), calls);
  }

  @Test
  void theLeaseIsExtendedEveryThirdOfItsLengthWhileTheHandlerRuns() throws Exception {
    offer("t1", "order.close", "key-1", 3); // extended every 1 s
    startWorker(
        PullWorkerOptions.builder(),
        "order.close",
        task -> {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          while (calls.stream().filter(c -> c.startsWith("extend")).count() < 2
              && System.nanoTime() < deadline) {
            Thread.sleep(10); // until the shell extended twice
          }
        });
    awaitCalls(3);
    assertEquals(List.of("extend t1", "extend t1", "ack t1"), calls);
  }

  @Test
  void concurrencyBoundsTheHandlersAndWhatOneLeaseCallAsksFor() throws Exception {
    CountDownLatch hold = new CountDownLatch(1);
    for (int i = 0; i < 5; i++) {
      offer("t" + i, "order.close", "key-" + i, 60);
    }
    startWorker(PullWorkerOptions.builder().concurrency(2), "order.close", task -> hold.await());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (ready.size() > 3 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    Thread.sleep(300); // a window in which a third lease would show (checked below)
    assertEquals(3, ready.size(), "two handlers busy: nothing more leased");
    assertTrue(maxes.stream().allMatch(m -> m <= 2), "max asked: " + maxes);
    hold.countDown();
    awaitCalls(5);
  }

  @Test
  void shutdownStopsLeasingAndReleasesWhatDidNotFinishInTime() throws Exception {
    offer("t1", "order.close", "key-1", 60);
    CountDownLatch started = new CountDownLatch(1);
    startWorker(
        PullWorkerOptions.builder(),
        "order.close",
        task -> {
          started.countDown();
          Thread.sleep(60_000);
        });
    assertTrue(started.await(10, TimeUnit.SECONDS));
    assertFalse(worker.shutdown(Duration.ofMillis(200)));
    running.join(5000);
    assertFalse(running.isAlive(), "run() returned");
    assertEquals(List.of("release t1"), calls, "released, never acked or nacked");
    offer("t2", "order.close", "key-2", 60);
    Thread.sleep(300); // no lease call after shutdown: t2 stays
    assertEquals(1, ready.size());
  }

  @Test
  void withAStoreADoneKeyIsAckedWithoutTheHandlerAndAHeldOneIsReleased() throws Exception {
    InMemoryIdempotencyStore store = new InMemoryIdempotencyStore();
    store.claim("done-key", Duration.ofMinutes(1));
    store.complete("done-key");
    store.claim("held-key", Duration.ofMinutes(1)); // another worker runs it
    List<String> ran = new CopyOnWriteArrayList<>();
    offer("t1", "order.close", "done-key", 60);
    offer("t2", "order.close", "held-key", 60);
    offer("t3", "order.close", "new-key", 60);
    startWorker(
        PullWorkerOptions.builder().idempotencyStore(store).concurrency(1),
        "order.close",
        task -> ran.add(task.idempotencyKey()));
    awaitCalls(3);
    assertEquals(List.of("ack t1", "release t2", "ack t3"), calls);
    assertEquals(List.of("new-key"), ran);
    assertEquals(
        dev.delayedtasks.client.callback.ClaimResult.DONE,
        store.claim("new-key", Duration.ofMinutes(1)).result());
  }
}
