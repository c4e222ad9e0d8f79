package dev.delayedtasks.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import dev.delayedtasks.client.CreateTaskRequest;
import dev.delayedtasks.client.DelayedTasksClient;
import dev.delayedtasks.client.Task;
import dev.delayedtasks.client.TaskStatus;
import dev.delayedtasks.client.When;
import dev.delayedtasks.client.callback.Callback;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * A Spring Boot application using the starter against the running service: the auto-configured
 * client creates a task whose callback comes back to the auto-configured endpoint. Needs {@code
 * DTS_URL}; skipped without it, failed under {@code CI=true}.
 */
@SpringBootTest(
    classes = SpringLiveIT.LiveApp.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@EnabledIf("serviceOrCi")
class SpringLiveIT {
  private static final String URL = System.getenv("DTS_URL");

  /** No component scan: only the handler below and the auto-configuration. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(LiveApp.Handler.class)
  static class LiveApp {
    static class Handler {
      final List<Callback> received = new CopyOnWriteArrayList<>();

      @DelayedTaskHandler("java.spring.live")
      void handle(Callback callback) {
        received.add(callback);
      }
    }
  }

  /** Without a service the class is skipped (without starting Spring), except under CI. */
  static boolean serviceOrCi() {
    return (URL != null && !URL.isBlank()) || "true".equals(System.getenv("CI"));
  }

  @BeforeAll
  static void needsService() {
    if (URL == null || URL.isBlank()) {
      fail("DTS_URL is not set under CI=true: the live scenarios must run");
    }
  }

  @DynamicPropertySource
  static void service(DynamicPropertyRegistry registry) {
    registry.add("delayed-tasks.base-url", () -> URL == null ? "http://127.0.0.1:9" : URL);
    registry.add("delayed-tasks.api-key", () -> System.getenv().getOrDefault("DTS_API_KEY", ""));
    String secret = System.getenv("DTS_WEBHOOK_SECRET");
    if (secret != null && !secret.isBlank()) {
      registry.add("delayed-tasks.webhook.secrets", () -> secret);
    } else {
      registry.add(
          "delayed-tasks.webhook.allow-unsigned", () -> "true"); // a stack that signs nothing
    }
  }

  @LocalServerPort int port;
  @Autowired DelayedTasksClient client;
  @Autowired LiveApp.Handler handler;

  @Test
  void aDueTaskReachesTheAnnotatedHandler() throws Exception {
    String taskId = "java-spring-" + UUID.randomUUID();
    client.create(
        CreateTaskRequest.builder()
            .taskType("java.spring.live")
            .taskId(taskId)
            .payload(Map.of("orderId", taskId))
            .when(When.after(Duration.ofMillis(200)))
            .callbackUrl("http://127.0.0.1:" + port + "/delayed-tasks/callback")
            .build());

    Instant deadline = Instant.now().plusSeconds(90);
    Task task = client.status(taskId);
    while (task.summary().status() != TaskStatus.SUCCEEDED && Instant.now().isBefore(deadline)) {
      Thread.sleep(250);
      task = client.status(taskId);
    }
    assertThat(task.summary().status()).isEqualTo(TaskStatus.SUCCEEDED);
    assertThat(handler.received)
        .singleElement()
        .satisfies(c -> assertThat(c.payload().get("orderId").asText()).isEqualTo(taskId));
  }
}
