package dev.delayedtasks.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.callback.InMemoryIdempotencyStore;
import dev.delayedtasks.jdbc.SqlIdempotencyStore;
import dev.delayedtasks.redis.RedisIdempotencyStore;
import java.lang.reflect.Proxy;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

class DelayedTasksStoresAutoConfigurationTest {
  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  DelayedTasksStoresAutoConfiguration.class, DelayedTasksAutoConfiguration.class));

  @Configuration(proxyBeanMethods = false)
  static class WithJedis {
    @Bean(destroyMethod = "close")
    UnifiedJedis jedis() {
      return new JedisPooled("redis://127.0.0.1:9"); // connects on first use only
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class WithDataSource {
    @Bean
    DataSource dataSource() {
      return (DataSource)
          Proxy.newProxyInstance(
              DataSource.class.getClassLoader(),
              new Class<?>[] {DataSource.class},
              (proxy, method, args) -> {
                throw new UnsupportedOperationException("not used with migrate=false");
              });
    }
  }

  @Test
  void storeRedisWithAJedisBeanIsTheRedisStore() {
    runner
        .withUserConfiguration(WithJedis.class)
        .withPropertyValues("delayed-tasks.idempotency.store=redis")
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(RedisIdempotencyStore.class));
  }

  @Test
  void storeJdbcWithADataSourceIsTheSqlStore() {
    runner
        .withUserConfiguration(WithDataSource.class)
        .withPropertyValues(
            "delayed-tasks.idempotency.store=jdbc", "delayed-tasks.idempotency.migrate=false")
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(SqlIdempotencyStore.class));
  }

  @Test
  void withoutThePropertyAJedisBeanLeavesTheInMemoryStore() {
    runner
        .withUserConfiguration(WithJedis.class, WithDataSource.class)
        .run(
            context ->
                assertThat(context.getBean(IdempotencyStore.class))
                    .isInstanceOf(InMemoryIdempotencyStore.class));
  }

  @Test
  void aStoreNamedWithoutItsBeanFailsTheStartupRatherThanFallBackToMemory() {
    runner
        .withPropertyValues("delayed-tasks.idempotency.store=redis")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("needs a UnifiedJedis bean"));
    runner
        .withPropertyValues("delayed-tasks.idempotency.store=jdbc")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("needs a DataSource bean"));
  }
}
