package dev.delayedtasks.spring;

import dev.delayedtasks.client.DelayedTasksClient;
import dev.delayedtasks.client.RetryPolicy;
import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.callback.InMemoryIdempotencyStore;
import dev.delayedtasks.client.callback.ReceiverResponse;
import dev.delayedtasks.client.callback.WebhookVerifier;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpStatusCode;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.RouterFunctions;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * The client (when {@code delayed-tasks.base-url} is set), and the callback endpoint serving every
 * {@link DelayedTaskHandler} (in a servlet web application).
 */
@AutoConfiguration
@EnableConfigurationProperties(DelayedTasksProperties.class)
public class DelayedTasksAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnProperty(prefix = "delayed-tasks", name = "base-url")
  public DelayedTasksClient delayedTasksClient(DelayedTasksProperties properties) {
    return DelayedTasksClient.builder()
        .baseUrl(properties.baseUrl())
        .apiKey(properties.apiKey())
        .timeout(properties.timeout())
        .retryPolicy(RetryPolicy.defaults().withMaxRetries(properties.maxRetries()))
        .build();
  }

  @Bean
  @ConditionalOnMissingBean
  public IdempotencyStore delayedTasksIdempotencyStore() {
    return new InMemoryIdempotencyStore();
  }

  /** Built from the configured secrets; a {@link Clock} bean, when there is one, is its clock. */
  @Bean
  @ConditionalOnMissingBean
  public DelayedTaskHandlerRegistry delayedTaskHandlerRegistry(
      DelayedTasksProperties properties,
      IdempotencyStore store,
      ObjectProvider<WebhookVerifier> verifier,
      ObjectProvider<Clock> clock) {
    return new DelayedTaskHandlerRegistry(
        () -> {
          WebhookVerifier custom = verifier.getIfAvailable();
          if (custom != null || properties.webhook().secrets().isEmpty()) {
            return custom;
          }
          return WebhookVerifier.builder()
              .secrets(properties.webhook().secrets())
              .tolerance(properties.webhook().tolerance())
              .clock(clock.getIfAvailable(Clock::systemUTC))
              .build();
        },
        properties.webhook().allowUnsigned(),
        store);
  }

  /**
   * {@code POST <delayed-tasks.callback.path>} handing the raw body to the registry; 404 while the
   * application has no handler at all.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(RouterFunction.class)
  @ConditionalOnProperty(
      prefix = "delayed-tasks.callback",
      name = "enabled",
      havingValue = "true",
      matchIfMissing = true)
  static class CallbackEndpointConfiguration {
    @Bean
    RouterFunction<ServerResponse> delayedTasksCallbackRoute(
        DelayedTasksProperties properties, DelayedTaskHandlerRegistry registry) {
      return RouterFunctions.route()
          .POST(
              properties.callback().path(),
              request -> {
                if (!registry.isReceiving()) {
                  return ServerResponse.notFound().build();
                }
                byte[] body = request.body(byte[].class);
                ReceiverResponse answer =
                    registry.handle(request.headers().asHttpHeaders().toSingleValueMap(), body);
                ServerResponse.BodyBuilder response =
                    ServerResponse.status(HttpStatusCode.valueOf(answer.status()));
                answer.headers().forEach(response::header);
                return response.body(answer.body());
              })
          .build();
    }
  }
}
