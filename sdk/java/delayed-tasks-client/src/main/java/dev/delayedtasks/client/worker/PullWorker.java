package dev.delayedtasks.client.worker;

import dev.delayedtasks.client.DelayedTaskException;
import dev.delayedtasks.client.DelayedTasksClient;
import dev.delayedtasks.client.Lease;
import dev.delayedtasks.client.LeaseRequest;
import dev.delayedtasks.client.LeasedTask;
import dev.delayedtasks.client.NackRequest;
import dev.delayedtasks.client.callback.Claim;
import dev.delayedtasks.client.callback.ClaimResult;
import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.callback.PermanentException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The worker shell of pull delivery ({@code conformance/pull/README.md}): one handler per task
 * type, at most {@code concurrency} handlers at once, long-poll leasing, the lease extended every
 * {@code leaseSeconds / 3} while the handler runs, ack when it returns, nack when it throws ({@link
 * PermanentException}: not retryable), and a graceful {@link #shutdown}.
 *
 * <pre>{@code
 * PullWorker worker = new PullWorker(client, PullWorkerOptions.builder().concurrency(4).build())
 *     .handle("order.close", task -> orders.close(task.payloadAs(OrderClose.class)));
 * Runtime.getRuntime().addShutdownHook(new Thread(() -> worker.shutdown(Duration.ofSeconds(30))));
 * worker.run(); // until shutdown
 * }</pre>
 *
 * <p>With an {@link IdempotencyStore}, each task's {@code idempotencyKey} is claimed first: done
 * before → ack without running the handler; claimed by another worker → the lease is released (a
 * retry comes later); else the handler runs, the key is completed before the ack and released after
 * a nack.
 */
public final class PullWorker {
  private static final Logger LOG = Logger.getLogger(PullWorker.class.getName());
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
  private static final String NO_HANDLER = "no handler for task type";
  private static final int MAX_PER_CALL = 10;

  private final DelayedTasksClient client;
  private final PullWorkerOptions options;
  private final Map<String, LeaseHandler> handlers = new LinkedHashMap<>(); // queues in this order
  private final Semaphore slots;
  private final ExecutorService handlerPool;
  private final ScheduledExecutorService extender;
  private final Map<String, Lease> inFlight = new ConcurrentHashMap<>();
  private final Map<String, Boolean> released = new ConcurrentHashMap<>();
  private final Map<String, Boolean> lost = new ConcurrentHashMap<>();
  private volatile boolean stopping;
  private volatile Thread poller;

  public PullWorker(DelayedTasksClient client, PullWorkerOptions options) {
    this.client = Objects.requireNonNull(client, "client");
    this.options = Objects.requireNonNull(options, "options");
    this.slots = new Semaphore(options.concurrency());
    this.handlerPool = Executors.newFixedThreadPool(options.concurrency(), daemon("handler"));
    this.extender = Executors.newSingleThreadScheduledExecutor(daemon("extender"));
  }

  /** Registers the handler of one task type; one per type. */
  public synchronized PullWorker handle(String taskType, LeaseHandler handler) {
    Objects.requireNonNull(taskType, "taskType");
    Objects.requireNonNull(handler, "handler");
    if (handlers.putIfAbsent(taskType, handler) != null) {
      throw new IllegalStateException("two handlers for task type " + taskType);
    }
    return this;
  }

  /**
   * Leases and handles tasks on the calling thread until {@link #shutdown}; a failed lease call is
   * retried with backoff (1 s doubling to 30 s).
   */
  public void run() {
    List<String> queues;
    synchronized (this) {
      queues = options.queues().isEmpty() ? List.copyOf(handlers.keySet()) : options.queues();
    }
    if (queues.isEmpty()) {
      throw new IllegalStateException("no queues: register a handler or give queues");
    }
    poller = Thread.currentThread();
    Duration backoff = Duration.ofSeconds(1);
    while (!stopping) {
      int free;
      try {
        slots.acquire();
        free = 1;
        while (free < MAX_PER_CALL && slots.tryAcquire()) {
          free++;
        }
      } catch (InterruptedException e) {
        break;
      }
      List<Lease> leases;
      try {
        leases =
            client.lease(
                LeaseRequest.builder()
                    .queues(queues)
                    .max(free)
                    .waitSeconds(options.waitSeconds())
                    .workerIdentity(options.workerIdentity())
                    .build());
        backoff = Duration.ofSeconds(1);
      } catch (DelayedTaskException e) {
        slots.release(free);
        if (stopping) {
          break;
        }
        LOG.log(Level.WARNING, "lease failed; retrying in " + backoff, e);
        try {
          Thread.sleep(backoff.toMillis());
        } catch (InterruptedException interrupted) {
          break;
        }
        backoff = backoff.multipliedBy(2);
        if (backoff.compareTo(MAX_BACKOFF) > 0) {
          backoff = MAX_BACKOFF;
        }
        continue;
      }
      slots.release(free - leases.size());
      for (Lease lease : leases) {
        if (stopping) { // leased while shutting down: hand it back at once
          releaseQuietly(lease);
          slots.release();
          continue;
        }
        inFlight.put(lease.leaseToken(), lease);
        handlerPool.execute(() -> process(lease));
      }
    }
    Thread.interrupted(); // the shutdown's interrupt ends here
  }

  /**
   * Stops leasing, waits up to {@code timeout} for the handlers in flight, then releases the leases
   * still running (another worker gets them at once, no attempt spent) and interrupts their
   * handlers.
   *
   * @return true when every handler finished within the timeout
   */
  public boolean shutdown(Duration timeout) {
    stopping = true;
    Thread polling = poller;
    if (polling != null) {
      polling.interrupt();
    }
    handlerPool.shutdown();
    boolean finished;
    try {
      finished = handlerPool.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      finished = false;
    }
    if (!finished) {
      for (Lease lease : new ArrayList<>(inFlight.values())) {
        released.put(lease.leaseToken(), Boolean.TRUE);
        releaseQuietly(lease);
      }
      handlerPool.shutdownNow();
    }
    extender.shutdownNow();
    return finished;
  }

  /** {@link #shutdown(Duration)} with the options' {@code shutdownTimeout}. */
  public boolean shutdown() {
    return shutdown(options.shutdownTimeout());
  }

  private void process(Lease lease) {
    LeasedTask task = lease.task();
    String token = lease.leaseToken();
    ScheduledFuture<?> extending = null;
    Claim claim = null;
    IdempotencyStore store = options.idempotencyStore();
    String key = task.idempotencyKey();
    try {
      LeaseHandler handler;
      synchronized (this) {
        handler = handlers.get(task.taskType());
      }
      if (handler == null) {
        settle(token, () -> client.nack(token, NackRequest.permanent(NO_HANDLER)));
        return;
      }
      if (store != null && key != null) {
        claim = store.claim(key, claimTtl(lease));
        if (claim.result() == ClaimResult.DONE) {
          settle(token, () -> client.ack(token));
          return;
        }
        if (claim.result() == ClaimResult.IN_PROGRESS) {
          settle(token, () -> client.release(token));
          return;
        }
      }
      long period = Math.max(10, leaseMillis(lease) / 3);
      ScheduledFuture<?>[] self = new ScheduledFuture<?>[1];
      extending =
          extender.scheduleAtFixedRate(
              () -> extend(token, self[0]), period, period, TimeUnit.MILLISECONDS);
      self[0] = extending;
      try {
        handler.handle(task);
      } catch (Exception e) {
        extending.cancel(false);
        if (claim != null) {
          store.release(key, claim.token());
        }
        NackRequest nack =
            e instanceof PermanentException
                ? NackRequest.permanent(e.getMessage())
                : NackRequest.retryable(e.getMessage() != null ? e.getMessage() : e.toString());
        settle(token, () -> client.nack(token, nack));
        return;
      }
      extending.cancel(false);
      if (claim != null) {
        store.complete(key);
      }
      settle(token, () -> client.ack(token));
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "task " + task.taskId() + ": the worker shell failed", e);
    } finally {
      if (extending != null) {
        extending.cancel(false);
      }
      inFlight.remove(token);
      lost.remove(token);
      slots.release();
    }
  }

  /** Acks, nacks or releases unless shutdown released the lease or an extend found it lost. */
  private void settle(String token, Runnable verb) {
    boolean wasReleased = released.remove(token) != null;
    boolean wasLost = lost.remove(token) != null;
    if (wasReleased || wasLost) {
      LOG.fine(
          () -> "lease " + token + (wasLost ? " was lost" : " was released") + ": not settled");
      return;
    }
    try {
      verb.run();
    } catch (DelayedTaskException e) {
      // LEASE_EXPIRED, TASK_CANCELLED, LEASE_NOT_FOUND: the task is someone else's now.
      LOG.log(Level.WARNING, "settling a lease failed: " + e.code(), e);
    }
  }

  /**
   * Extends the lease; a lease the server answers as expired, unknown or cancelled is lost: no more
   * extends, and the handler's result is reported, not sent.
   */
  private void extend(String token, ScheduledFuture<?> self) {
    try {
      client.extend(token);
    } catch (DelayedTaskException e) {
      LOG.log(Level.WARNING, "extending lease " + token + " failed: " + e.rawCode(), e);
      switch (e.code()) {
        case LEASE_EXPIRED, LEASE_NOT_FOUND, TASK_CANCELLED -> {
          lost.put(token, Boolean.TRUE);
          if (self != null) {
            self.cancel(false);
          }
        }
        default -> {} // a network failure: the next extend may get through
      }
    }
  }

  private void releaseQuietly(Lease lease) {
    try {
      client.release(lease.leaseToken());
    } catch (DelayedTaskException e) {
      LOG.log(Level.WARNING, "releasing a lease failed: " + e.code(), e);
    }
  }

  /** The lease's length as leased: leaseSeconds (at least 1 s). */
  private static long leaseMillis(Lease lease) {
    Instant expires = lease.leaseExpiresAt();
    long millis = expires == null ? 60_000 : Duration.between(Instant.now(), expires).toMillis();
    return Math.max(1000, millis);
  }

  /** A claim outlives the lease by a margin, as a crashed worker's lease expires too. */
  private static Duration claimTtl(Lease lease) {
    Duration ttl = Duration.ofMillis(leaseMillis(lease)).multipliedBy(2);
    return ttl.compareTo(IdempotencyStore.DEFAULT_CLAIM_TTL) < 0
        ? IdempotencyStore.DEFAULT_CLAIM_TTL
        : ttl;
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, "pull-worker-" + name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
