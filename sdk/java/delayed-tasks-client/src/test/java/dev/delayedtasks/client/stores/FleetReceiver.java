package dev.delayedtasks.client.stores;

import com.sun.net.httpserver.HttpServer;
import dev.delayedtasks.client.callback.CallbackHttpHandler;
import dev.delayedtasks.client.callback.CallbackReceiver;
import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.callback.WebhookVerifier;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.Executors;

/**
 * One receiver of the fleet test, a process of its own: a JDK {@code HttpServer} on a free loopback
 * port serving a {@link CallbackReceiver} over the shared store. Its effect appends the task id to
 * {@code effects-<pid>.txt}; the first delivery of a {@code slow-} task writes {@code
 * started-<taskId>} and hangs until the process is killed.
 *
 * <p>Arguments: store factory class, store URL, webhook secret, directory, claim TTL in ms.
 */
public final class FleetReceiver {
  private FleetReceiver() {}

  public static void main(String[] args) throws Exception {
    StoreFactory factory =
        (StoreFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
    IdempotencyStore store = factory.open(args[1]);
    Path dir = Path.of(args[3]);
    long pid = ProcessHandle.current().pid();
    Path effects = dir.resolve("effects-" + pid + ".txt");
    Object lock = new Object();
    CallbackReceiver receiver =
        CallbackReceiver.builder()
            .verifier(WebhookVerifier.builder().secret(args[2]).build())
            .idempotencyStore(store)
            .claimTtl(Duration.ofMillis(Long.parseLong(args[4])))
            .handler(
                "fleet.effect",
                callback -> {
                  if (callback.taskId().startsWith("slow-")) {
                    try {
                      Files.createFile(dir.resolve("started-" + callback.taskId()));
                      Thread.sleep(Long.MAX_VALUE); // mid-effect until kill -9
                    } catch (FileAlreadyExistsException retry) {
                      // the retry after the crash: run the effect
                    }
                  }
                  synchronized (lock) {
                    Files.writeString(
                        effects,
                        callback.taskId() + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
                  }
                })
            .build();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 256);
    server.setExecutor(Executors.newFixedThreadPool(16));
    server.createContext("/callback", new CallbackHttpHandler(receiver));
    server.start();
    Path port = dir.resolve("port-" + pid);
    Files.writeString(
        dir.resolve("port-" + pid + ".tmp"), Integer.toString(server.getAddress().getPort()));
    Files.move(dir.resolve("port-" + pid + ".tmp"), port);
  }
}
