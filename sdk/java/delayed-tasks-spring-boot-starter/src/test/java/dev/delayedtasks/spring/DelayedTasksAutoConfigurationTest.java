package dev.delayedtasks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.delayedtasks.client.DelayedTasksClient;
import dev.delayedtasks.client.Version;
import dev.delayedtasks.client.callback.Callback;
import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.callback.InMemoryIdempotencyStore;
import dev.delayedtasks.client.callback.ReceiverResponse;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.converter.ByteArrayHttpMessageConverter;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.servlet.function.HandlerFunction;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerRequest;

class DelayedTasksAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(DelayedTasksAutoConfiguration.class));
  private final WebApplicationContextRunner webRunner =
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(DelayedTasksAutoConfiguration.class));

  @Configuration(proxyBeanMethods = false)
  static class Handlers {
    @Bean
    OrderHandler orderHandler() {
      return new OrderHandler();
    }
  }

  static class OrderHandler {
    @DelayedTaskHandler("order.close")
    void close(Callback callback) {}

    @DelayedTaskHandler("order.open")
    void open(Map<String, Object> payload) {}
  }

  @Configuration(proxyBeanMethods = false)
  static class DuplicateHandlers {
    @Bean
    OrderHandler one() {
      return new OrderHandler();
    }

    @Bean
    OrderHandler two() {
      return new OrderHandler();
    }
  }

  static class TwoParameters {
    @DelayedTaskHandler("bad")
    void handle(Callback callback, String extra) {}
  }

  @Configuration(proxyBeanMethods = false)
  static class BadSignature {
    @Bean
    TwoParameters twoParameters() {
      return new TwoParameters();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class CustomStore {
    @Bean
    IdempotencyStore redisLikeStore() {
      return new InMemoryIdempotencyStore(10);
    }
  }

  @Test
  void noClientWithoutABaseUrl() {
    runner.run(
        context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(DelayedTasksClient.class);
          assertThat(context).hasSingleBean(DelayedTaskHandlerRegistry.class);
          assertThat(context).doesNotHaveBean(RouterFunction.class);
        });
  }

  @Test
  void theClientUsesTheConfiguredBaseUrlAndKey() throws Exception {
    Map<String, String> seen = new ConcurrentHashMap<>();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          seen.put("path", exchange.getRequestURI().getRawPath());
          seen.put("authorization", exchange.getRequestHeaders().getFirst("Authorization"));
          seen.put("user-agent", exchange.getRequestHeaders().getFirst("User-Agent"));
          byte[] body =
              "{\"taskId\":\"t1\",\"taskType\":\"a\",\"status\":\"SCHEDULED\",\"payload\":{}}"
                  .getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
    try {
      runner
          .withPropertyValues(
              "delayed-tasks.base-url=http://127.0.0.1:" + server.getAddress().getPort(),
              "delayed-tasks.api-key=dts_k1_secret",
              "delayed-tasks.timeout=2s")
          .run(
              context -> {
                assertThat(context).hasSingleBean(DelayedTasksClient.class);
                context.getBean(DelayedTasksClient.class).status("t1");
              });
    } finally {
      server.stop(0);
    }
    assertThat(seen)
        .containsEntry("path", "/api/v1/tasks/t1")
        .containsEntry("authorization", "Bearer dts_k1_secret")
        .containsEntry("user-agent", Version.USER_AGENT);
  }

  @Test
  void annotatedMethodsAreRegisteredByTaskType() {
    runner
        .withUserConfiguration(Handlers.class)
        .withPropertyValues("delayed-tasks.webhook.secrets=" + CallbackEndpointTest.SECRET)
        .run(
            context -> {
              DelayedTaskHandlerRegistry registry =
                  context.getBean(DelayedTaskHandlerRegistry.class);
              assertThat(registry.handlers()).containsOnlyKeys("order.close", "order.open");
              assertThat(registry.isReceiving()).isTrue();
            });
  }

  @Test
  void handlersWithoutASecretFailTheStartup() {
    runner
        .withUserConfiguration(Handlers.class)
        .run(
            context ->
                assertThat(rootCause(context.getStartupFailure()))
                    .hasMessageContaining("delayed-tasks.webhook.allow-unsigned=true"));
  }

  @Test
  void unsignedCallbacksAreReceivedOnlyWhenAllowedExplicitly() {
    runner
        .withUserConfiguration(Handlers.class)
        .withPropertyValues("delayed-tasks.webhook.allow-unsigned=true")
        .run(
            context -> {
              ReceiverResponse answer =
                  context
                      .getBean(DelayedTaskHandlerRegistry.class)
                      .handle(
                          Map.of(),
                          """
                          {"taskId":"t-1","taskType":"order.close","payload":{},"payloadVersion":1,
                           "executeAt":"2026-12-03T10:00:00.000Z","attempt":1}
                          """
                              .getBytes(StandardCharsets.UTF_8));
              assertThat(answer.status()).isEqualTo(200);
              assertThat(answer.body()).isEqualTo("{\"status\":\"handled\"}");
            });
  }

  @Test
  void withoutHandlersOrSecretsNothingIsReceived() {
    webRunner.run(
        context -> {
          assertThat(context.getBean(DelayedTaskHandlerRegistry.class).isReceiving()).isFalse();
          MockHttpServletRequest post =
              new MockHttpServletRequest("POST", "/delayed-tasks/callback");
          post.setContent("{}".getBytes(StandardCharsets.UTF_8));
          ServerRequest request =
              ServerRequest.create(post, List.of(new ByteArrayHttpMessageConverter()));
          RouterFunction<?> route = context.getBean(RouterFunction.class);
          HandlerFunction<?> endpoint = route.route(request).orElseThrow();
          assertThat(endpoint.handle(request).statusCode().value()).isEqualTo(404);
        });
  }

  @Test
  void twoHandlersForOneTypeFailTheStartup() {
    runner
        .withUserConfiguration(DuplicateHandlers.class)
        .run(
            context ->
                assertThat(rootCause(context.getStartupFailure()))
                    .hasMessageContaining("order.close has two handlers"));
  }

  @Test
  void aHandlerMethodWithTwoParametersFailsTheStartup() {
    runner
        .withUserConfiguration(BadSignature.class)
        .run(
            context ->
                assertThat(rootCause(context.getStartupFailure()))
                    .hasMessageContaining("exactly one parameter"));
  }

  @Test
  void anInvalidSecretFailsTheStartup() {
    runner
        .withPropertyValues("delayed-tasks.webhook.secrets=whsec_***")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("invalid_secret: "));
  }

  @Test
  void theEndpointExistsInAServletApplicationUnlessDisabled() {
    webRunner.run(context -> assertThat(context).hasSingleBean(RouterFunction.class));
    webRunner
        .withPropertyValues("delayed-tasks.callback.enabled=false")
        .run(context -> assertThat(context).doesNotHaveBean(RouterFunction.class));
  }

  @Test
  void aUserIdempotencyStoreReplacesTheDefault() {
    runner
        .withUserConfiguration(CustomStore.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(IdempotencyStore.class);
              assertThat(context).hasBean("redisLikeStore");
            });
  }

  private static Throwable rootCause(Throwable failure) {
    assertThat(failure).as("the context must fail to start").isNotNull();
    Throwable cause = failure;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
