package dev.delayedtasks.client.worker;

import dev.delayedtasks.client.callback.IdempotencyStore;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * Options of a {@link PullWorker}, the same names and defaults in every SDK.
 *
 * @param queues the queues leased (default: the registered task types)
 * @param concurrency handlers running at once (default 10)
 * @param waitSeconds how long one lease call waits for a task (default 20)
 * @param workerIdentity shown in a leased task's status (default host/pid)
 * @param idempotencyStore consulted on each task's {@code idempotencyKey} (default none)
 * @param shutdownTimeout how long shutdown waits for in-flight handlers (default 30 s)
 */
public record PullWorkerOptions(
    List<String> queues,
    int concurrency,
    int waitSeconds,
    String workerIdentity,
    IdempotencyStore idempotencyStore,
    Duration shutdownTimeout) {

  public PullWorkerOptions {
    queues = queues == null ? List.of() : List.copyOf(queues);
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be >= 1");
    }
    if (waitSeconds < 0 || waitSeconds > 20) {
      throw new IllegalArgumentException("waitSeconds must be within 0 to 20");
    }
    Objects.requireNonNull(workerIdentity, "workerIdentity");
    Objects.requireNonNull(shutdownTimeout, "shutdownTimeout");
  }

  public static Builder builder() {
    return new Builder();
  }

  /** host/pid. */
  static String defaultIdentity() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      host = "localhost";
    }
    return host + "/" + ProcessHandle.current().pid();
  }

  /** Builds {@link PullWorkerOptions}. */
  public static final class Builder {
    private List<String> queues = List.of();
    private int concurrency = 10;
    private int waitSeconds = 20;
    private String workerIdentity = defaultIdentity();
    private IdempotencyStore idempotencyStore;
    private Duration shutdownTimeout = Duration.ofSeconds(30);

    private Builder() {}

    public Builder queues(List<String> queues) {
      this.queues = queues;
      return this;
    }

    public Builder queues(String... queues) {
      return queues(List.of(queues));
    }

    public Builder concurrency(int concurrency) {
      this.concurrency = concurrency;
      return this;
    }

    public Builder waitSeconds(int waitSeconds) {
      this.waitSeconds = waitSeconds;
      return this;
    }

    public Builder workerIdentity(String workerIdentity) {
      this.workerIdentity = workerIdentity;
      return this;
    }

    public Builder idempotencyStore(IdempotencyStore idempotencyStore) {
      this.idempotencyStore = idempotencyStore;
      return this;
    }

    public Builder shutdownTimeout(Duration shutdownTimeout) {
      this.shutdownTimeout = shutdownTimeout;
      return this;
    }

    public PullWorkerOptions build() {
      return new PullWorkerOptions(
          queues, concurrency, waitSeconds, workerIdentity, idempotencyStore, shutdownTimeout);
    }
  }
}
