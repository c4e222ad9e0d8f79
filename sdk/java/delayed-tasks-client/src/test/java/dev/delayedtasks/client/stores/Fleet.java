package dev.delayedtasks.client.stores;

import dev.delayedtasks.client.callback.WebhookVerifier;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * The fleet test of issue 42: N receivers as separate JVMs sharing one store, the same signed
 * callback delivered to all of them at once for each of K distinct keys; then one receiver killed
 * (SIGKILL) mid-effect and the callback retried on the others until handled.
 */
public final class Fleet {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration CRASH_TIMEOUT = Duration.ofSeconds(30);

  /** What a run saw. */
  public record Result(
      int keys,
      int effects,
      int doubles,
      int missing,
      Map<String, Integer> answers,
      long herdMillis,
      int crashedKeyEffects,
      int crashRetries503,
      long crashRecoveryMillis,
      String crashedKeyLastAnswer) {}

  private final Class<? extends StoreFactory> factory;
  private final String url;
  private final int receivers;
  private final Duration claimTtl;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final String run = UUID.randomUUID().toString().substring(0, 8);
  private final List<Process> processes = new ArrayList<>();
  private final List<String> urls = new ArrayList<>();
  private Path dir;

  public Fleet(
      Class<? extends StoreFactory> factory, String url, int receivers, Duration claimTtl) {
    this.factory = factory;
    this.url = url;
    this.receivers = receivers;
    this.claimTtl = claimTtl;
  }

  public Result run(int keys) throws Exception {
    dir = Files.createTempDirectory("fleet-");
    try {
      start();
      Map<String, Integer> answers = new HashMap<>();
      long herdStarted = System.nanoTime();
      herd(keys, answers);
      long herdMillis = (System.nanoTime() - herdStarted) / 1_000_000;
      Map<String, Integer> effects = effects();
      int doubles = 0;
      int total = 0;
      for (Map.Entry<String, Integer> e : effects.entrySet()) {
        if (e.getKey().startsWith("fleet-")) {
          total += e.getValue();
          doubles += Math.max(0, e.getValue() - 1);
        }
      }
      int missing = 0;
      for (int i = 0; i < keys; i++) {
        if (!effects.containsKey(taskId(i))) {
          missing++;
        }
      }
      long crashStarted = System.nanoTime();
      String slow = "slow-" + run;
      int[] retries = {0};
      String last = crash(slow, retries);
      long crashMillis = (System.nanoTime() - crashStarted) / 1_000_000;
      int slowEffects = effects().getOrDefault(slow, 0);
      return new Result(
          keys,
          total,
          doubles,
          missing,
          answers,
          herdMillis,
          slowEffects,
          retries[0],
          crashMillis,
          last);
    } finally {
      for (Process p : processes) {
        p.destroyForcibly();
      }
      for (Process p : processes) {
        p.waitFor();
      }
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(dir);
    }
  }

  private void start() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (int i = 0; i < receivers; i++) {
      processes.add(
          new ProcessBuilder(
                  java,
                  "-Xmx128m",
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  System.getProperty("java.class.path"),
                  FleetReceiver.class.getName(),
                  factory.getName(),
                  url,
                  SECRET,
                  dir.toString(),
                  Long.toString(claimTtl.toMillis()))
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("receiver-" + i + ".log").toFile())
              .start());
    }
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    for (Process p : processes) {
      Path port = dir.resolve("port-" + p.pid());
      while (!Files.exists(port)) {
        if (!p.isAlive() || Instant.now().isAfter(deadline)) {
          throw new IllegalStateException("a receiver did not start: " + logs());
        }
        Thread.sleep(50); // polling for the port file the receiver writes
      }
      urls.add("http://127.0.0.1:" + Files.readString(port).trim() + "/callback");
    }
  }

  private String logs() throws IOException {
    StringBuilder all = new StringBuilder();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".log")).toList()) {
        all.append(f.getFileName()).append(": ").append(Files.readString(f)).append('\n');
      }
    }
    return all.toString();
  }

  private static String taskId(int i) {
    return "fleet-" + i;
  }

  /** Each key to every receiver at once, 8 keys in flight; a key answered 503 is retried. */
  private void herd(int keys, Map<String, Integer> answers) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<List<String>>> all = new ArrayList<>();
      for (int i = 0; i < keys; i++) {
        int key = i;
        all.add(pool.submit(() -> deliverToAll(key)));
      }
      for (Future<List<String>> f : all) {
        for (String answer : f.get()) {
          answers.merge(answer, 1, Integer::sum);
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private List<String> deliverToAll(int key) throws Exception {
    HttpRequest request = signed(taskId(key), "msg_" + run + "_" + key, urls);
    List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
    for (String target : urls) {
      sent.add(http.sendAsync(at(request, target), HttpResponse.BodyHandlers.ofString()));
    }
    List<String> out = new ArrayList<>();
    boolean busy = false;
    for (CompletableFuture<HttpResponse<String>> f : sent) {
      String answer = answer(f.get());
      busy |= answer.startsWith("503");
      out.add(answer);
    }
    if (busy) { // as the service would: the retry later is a duplicate
      out.add(
          "retry "
              + answer(
                  http.send(
                      at(request, urls.get(key % urls.size())),
                      HttpResponse.BodyHandlers.ofString())));
    }
    return out;
  }

  private static String answer(HttpResponse<String> response) {
    return response.statusCode() + " " + response.body();
  }

  /** Receiver 0 starts the slow effect, is killed; the others are retried until one answers 200. */
  private String crash(String slow, int[] retries) throws Exception {
    HttpRequest request = signed(slow, "msg_" + run + "_slow", urls);
    http.sendAsync(at(request, urls.get(0)), HttpResponse.BodyHandlers.ofString());
    Instant deadline = Instant.now().plus(CRASH_TIMEOUT);
    while (!Files.exists(dir.resolve("started-" + slow))) {
      if (Instant.now().isAfter(deadline)) {
        throw new IllegalStateException("the slow effect did not start: " + logs());
      }
      Thread.sleep(20); // polling for the marker the handler writes
    }
    processes.get(0).destroyForcibly(); // SIGKILL
    processes.get(0).waitFor();
    AtomicInteger next = new AtomicInteger(1);
    while (Instant.now().isBefore(deadline)) {
      String target = urls.get(1 + next.getAndIncrement() % (urls.size() - 1));
      String answer = answer(http.send(at(request, target), HttpResponse.BodyHandlers.ofString()));
      if (answer.startsWith("200")) {
        String again = answer(http.send(at(request, target), HttpResponse.BodyHandlers.ofString()));
        return answer + " then " + again;
      }
      retries[0]++;
      Thread.sleep(100); // the service's retry backoff, shortened
    }
    return "no 200 before the deadline";
  }

  private HttpRequest signed(String taskId, String msgId, List<String> targets) {
    String body =
        "{\"taskId\":\""
            + taskId
            + "\",\"taskType\":\"fleet.effect\",\"payload\":{},\"payloadVersion\":1,"
            + "\"executeAt\":\"2026-12-05T10:00:00.000Z\",\"attempt\":1,\"traceId\":null}";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    long now = Instant.now().getEpochSecond();
    return HttpRequest.newBuilder(URI.create(targets.get(0)))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .header("webhook-id", msgId)
        .header("webhook-timestamp", Long.toString(now))
        .header("webhook-signature", WebhookVerifier.sign(SECRET, msgId, now, bytes))
        .POST(HttpRequest.BodyPublishers.ofByteArray(bytes))
        .build();
  }

  private static HttpRequest at(HttpRequest request, String target) {
    return HttpRequest.newBuilder(request, (name, value) -> true).uri(URI.create(target)).build();
  }

  /** Effects per task id, over every receiver's file. */
  private Map<String, Integer> effects() throws IOException {
    Map<String, Integer> counts = new HashMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path f : files.filter(f -> f.getFileName().toString().startsWith("effects-")).toList()) {
        for (String line : Files.readAllLines(f)) {
          if (!line.isBlank()) {
            counts.merge(line.trim(), 1, Integer::sum);
          }
        }
      }
    }
    return counts;
  }
}
