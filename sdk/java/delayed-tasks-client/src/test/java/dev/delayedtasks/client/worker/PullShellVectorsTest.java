package dev.delayedtasks.client.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.delayedtasks.client.DelayedTasksClient;
import dev.delayedtasks.client.LeasedTask;
import dev.delayedtasks.client.RetryPolicy;
import dev.delayedtasks.client.callback.InMemoryIdempotencyStore;
import dev.delayedtasks.client.callback.PermanentException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * conformance/pull/shell-vectors.json: the worker shell's behaviour, scripted against a fake lease
 * server in this process that answers only when a step says so (a unit test of the shell).
 */
class PullShellVectorsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long WAIT_SECONDS = 5;
  private static final DateTimeFormatter MILLIS =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  @TestFactory
  Stream<DynamicTest> shellVectors() throws IOException {
    Path file = Path.of(System.getProperty("conformance.dir"), "pull", "shell-vectors.json");
    List<DynamicTest> tests = new ArrayList<>();
    for (JsonNode c : JSON.readTree(file.toFile())) {
      tests.add(DynamicTest.dynamicTest(c.path("name").asText(), () -> new Run(c).play()));
    }
    return tests.stream();
  }

  /** A request the fake server holds until a step answers it. */
  private record Pending(String path, JsonNode body, CompletableFuture<Answer> answer) {}

  private record Answer(int status, JsonNode body) {}

  /** One case: the fake server, the worker, the gated handlers. */
  private static final class Run {
    private final JsonNode c;
    private final BlockingQueue<Pending> leaseCalls = new LinkedBlockingQueue<>();
    private final BlockingQueue<Pending> otherCalls = new LinkedBlockingQueue<>();
    private final List<Pending> all = new ArrayList<>();
    private final Map<String, String> tokenByTaskId = new ConcurrentHashMap<>();
    private final Map<String, Long> leaseMsByToken = new ConcurrentHashMap<>();
    private final Map<String, LeasedTask> started = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<JsonNode>> gates = new ConcurrentHashMap<>();
    private final ExecutorService background = Executors.newCachedThreadPool();
    private HttpServer server;
    private PullWorker worker;
    private InMemoryIdempotencyStore store;
    private CompletableFuture<Void> running;
    private CompletableFuture<Boolean> stopping;

    Run(JsonNode c) {
      this.c = c;
    }

    void play() throws Exception {
      startServer();
      try {
        startWorker();
        for (JsonNode step : c.path("steps")) {
          step(step);
        }
        if (stopping == null) {
          stopping = CompletableFuture.supplyAsync(() -> worker.shutdown(Duration.ofSeconds(2)));
        }
        running.get(WAIT_SECONDS, TimeUnit.SECONDS);
        stopping.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertTrue(otherCalls.isEmpty(), "calls no step took: " + describe(otherCalls));
        assertEquals(
            c.path("expect").path("handlerCalls").asInt(), started.size(), "handlers started");
      } finally {
        gates.values().forEach(g -> g.complete(JSON.createObjectNode().put("outcome", "return")));
        synchronized (all) {
          all.forEach(p -> p.answer().complete(new Answer(200, leases(JSON.createArrayNode()))));
        }
        server.stop(0);
        background.shutdownNow();
      }
    }

    private void startServer() throws IOException {
      server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.setExecutor(background);
      server.createContext("/", this::serve);
      server.start();
    }

    private void serve(HttpExchange exchange) throws IOException {
      try (exchange) {
        String path = exchange.getRequestURI().getPath();
        Pending pending =
            new Pending(path, JSON.readTree(exchange.getRequestBody()), new CompletableFuture<>());
        synchronized (all) {
          all.add(pending);
        }
        (path.equals("/api/v1/leases") ? leaseCalls : otherCalls).add(pending);
        Answer answer;
        try {
          answer = pending.answer().get();
        } catch (Exception e) {
          return;
        }
        byte[] bytes = JSON.writeValueAsBytes(answer.body());
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(answer.status(), bytes.length);
        exchange.getResponseBody().write(bytes);
      } catch (IOException hungUp) {
        // the worker hung up (a shutdown ended its long poll)
      }
    }

    private void startWorker() {
      JsonNode w = c.path("worker");
      DelayedTasksClient client =
          DelayedTasksClient.builder()
              .baseUrl("http://127.0.0.1:" + server.getAddress().getPort())
              .retryPolicy(RetryPolicy.defaults().withMaxRetries(0))
              .build();
      PullWorkerOptions.Builder options = PullWorkerOptions.builder();
      if (w.has("concurrency")) {
        options.concurrency(w.path("concurrency").asInt());
      }
      if (w.has("workerIdentity")) {
        options.workerIdentity(w.path("workerIdentity").asText());
      }
      if (w.has("queues")) {
        List<String> queues = new ArrayList<>();
        w.path("queues").forEach(q -> queues.add(q.asText()));
        options.queues(queues);
      }
      if (w.has("store")) {
        store = new InMemoryIdempotencyStore();
        w.path("store")
            .properties()
            .forEach(
                e -> {
                  store.claim(e.getKey(), Duration.ofHours(1));
                  if (e.getValue().asText().equals("DONE")) {
                    store.complete(e.getKey());
                  }
                });
        options.idempotencyStore(store);
      }
      worker = new PullWorker(client, options.build());
      for (JsonNode type : w.path("handlers")) {
        worker.handle(type.asText(), this::gated);
      }
      running = CompletableFuture.runAsync(worker::run, background);
    }

    private void gated(LeasedTask task) throws Exception {
      String token = tokenByTaskId.get(task.taskId());
      CompletableFuture<JsonNode> gate =
          gates.computeIfAbsent(token, t -> new CompletableFuture<>());
      started.put(token, task);
      JsonNode how = gate.get();
      switch (how.path("outcome").asText()) {
        case "throw" -> throw new IllegalStateException(how.path("message").asText());
        case "permanent" -> throw new PermanentException(how.path("message").asText());
        default -> {}
      }
    }

    private void step(JsonNode step) throws Exception {
      String where = step.toString();
      switch (step.path("op").asText()) {
        case "expectLease" -> {
          Pending call = leaseCalls.poll(WAIT_SECONDS, TimeUnit.SECONDS);
          assertNotNull(call, "no lease call: " + where);
          assertMatches(step.path("body"), call.body(), where);
          JsonNode answer = step.path("answer");
          if (answer.isArray()) {
            ArrayNode sent = JSON.createArrayNode();
            for (JsonNode lease : answer) {
              ObjectNode copy = lease.deepCopy();
              long ms = lease.path("leaseExpiresAt").path("$inMs").asLong();
              String token = lease.path("leaseToken").asText();
              leaseMsByToken.put(token, ms);
              tokenByTaskId.put(lease.path("task").path("taskId").asText(), token);
              copy.put("leaseExpiresAt", MILLIS.format(Instant.now().plusMillis(ms)));
              sent.add(copy);
            }
            call.answer().complete(new Answer(200, leases(sent)));
          } else if (answer.isObject()) {
            call.answer().complete(error(answer));
          }
        }
        case "expectCall" -> {
          Pending call = nextCallFor(step.path("body").path("leaseToken").asText());
          assertNotNull(call, "no call: " + where);
          String verb = step.path("verb").asText();
          assertEquals("/api/v1/leases/" + verb, call.path(), where);
          assertEquals(step.path("body"), call.body(), where);
          if (step.has("answer")) {
            call.answer().complete(error(step.path("answer")));
          } else {
            String token = call.body().path("leaseToken").asText();
            ObjectNode body = JSON.createObjectNode();
            if (verb.equals("extend")) {
              long ms = leaseMsByToken.getOrDefault(token, 60_000L);
              body.put("leaseExpiresAt", MILLIS.format(Instant.now().plusMillis(ms)));
            } else {
              String taskId =
                  tokenByTaskId.entrySet().stream()
                      .filter(e -> e.getValue().equals(token))
                      .map(Map.Entry::getKey)
                      .findFirst()
                      .orElse(token);
              boolean failed =
                  verb.equals("nack") && !call.body().path("retryable").asBoolean(true);
              body.put("taskId", taskId)
                  .put("status", verb.equals("ack") ? "SUCCEEDED" : failed ? "FAILED" : "RUNNING");
            }
            call.answer().complete(new Answer(200, body));
          }
        }
        case "expectHandler" -> {
          String token = step.path("leaseToken").asText();
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
          while (!started.containsKey(token) && System.nanoTime() < deadline) {
            Thread.sleep(5); // polling for the handler to start
          }
          LeasedTask task = started.get(token);
          assertNotNull(task, "handler not started: " + where);
          if (step.has("task")) {
            JsonNode view = view(task);
            step.path("task")
                .properties()
                .forEach(e -> assertEquals(e.getValue(), view.path(e.getKey()), e.getKey()));
          }
        }
        case "finish" ->
            gates
                .computeIfAbsent(step.path("leaseToken").asText(), t -> new CompletableFuture<>())
                .complete(step);
        case "expectIdle" -> {
          int handlers = started.size();
          Thread.sleep(step.path("ms").asLong()); // the window in which nothing may happen
          assertTrue(leaseCalls.isEmpty(), "a lease call while idle: " + where);
          assertTrue(otherCalls.isEmpty(), "a call while idle: " + describe(otherCalls));
          assertEquals(handlers, started.size(), "a handler started while idle");
        }
        case "shutdown" -> {
          long ms = step.path("timeoutMs").asLong();
          stopping =
              CompletableFuture.supplyAsync(
                  () -> worker.shutdown(Duration.ofMillis(ms)), background);
        }
        case "expectStopped" -> {
          running.get(WAIT_SECONDS, TimeUnit.SECONDS);
          stopping.get(WAIT_SECONDS, TimeUnit.SECONDS);
        }
        case "claim" ->
            assertEquals(
                step.path("expect").asText(),
                store.claim(step.path("key").asText(), Duration.ofMinutes(1)).result().name(),
                where);
        default -> fail("unknown op " + step.path("op").asText());
      }
    }

    /**
     * The next call for this lease. Calls for other leases may come first: handlers run on threads
     * of their own, so two handlers finished one after the other settle in either order. The calls
     * of one lease keep their order.
     */
    private Pending nextCallFor(String token) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (System.nanoTime() < deadline) {
        for (Pending p : otherCalls) {
          if (p.body().path("leaseToken").asText().equals(token)) {
            otherCalls.remove(p);
            return p;
          }
        }
        Thread.sleep(5); // polling for the call to arrive
      }
      return otherCalls.poll(); // none for this lease: the first other call shows in the failure
    }

    private static JsonNode leases(ArrayNode leases) {
      ObjectNode body = JSON.createObjectNode();
      body.set("leases", leases);
      return body;
    }

    private static Answer error(JsonNode answer) {
      ObjectNode body = JSON.createObjectNode();
      body.putObject("error")
          .put("code", answer.path("code").asText())
          .put("message", answer.path("code").asText());
      return new Answer(answer.path("status").asInt(), body);
    }

    /** The LeasedTask in wire names, for the fields a step lists. */
    private static JsonNode view(LeasedTask task) {
      ObjectNode v = JSON.createObjectNode();
      v.put("taskId", task.taskId()).put("taskType", task.taskType()).put("queue", task.queue());
      v.set("payload", task.payload());
      v.put("payloadVersion", task.payloadVersion()).put("attempt", task.attempt());
      v.put("executeAt", task.executeAt() == null ? null : MILLIS.format(task.executeAt()));
      v.put("idempotencyKey", task.idempotencyKey()).put("traceId", task.traceId());
      if (task.scheduleId() == null) {
        v.putNull("schedule");
      } else {
        v.putObject("schedule")
            .put("scheduleId", task.scheduleId())
            .put("scheduledAt", MILLIS.format(task.scheduledAt()));
      }
      return v;
    }

    private static void assertMatches(JsonNode expected, JsonNode actual, String where) {
      if (expected.isObject() && expected.has("$match")) {
        assertEquals("nonEmptyString", expected.path("$match").asText(), where);
        assertTrue(actual.isTextual() && !actual.asText().isEmpty(), where + ": " + actual);
        return;
      }
      if (expected.isObject()) {
        assertTrue(actual.isObject(), where + ": " + actual);
        List<String> names = new ArrayList<>();
        actual.fieldNames().forEachRemaining(names::add);
        List<String> wanted = new ArrayList<>();
        expected.fieldNames().forEachRemaining(wanted::add);
        assertEquals(wanted.stream().sorted().toList(), names.stream().sorted().toList(), where);
        expected
            .properties()
            .forEach(e -> assertMatches(e.getValue(), actual.get(e.getKey()), where));
        return;
      }
      assertEquals(expected, actual, where);
    }

    private static String describe(BlockingQueue<Pending> calls) {
      return calls.stream().map(p -> p.path() + " " + p.body()).toList().toString();
    }
  }
}
