package dev.delayedtasks.spring;

import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.jdbc.SqlIdempotencyStore;
import dev.delayedtasks.redis.RedisIdempotencyStore;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import redis.clients.jedis.UnifiedJedis;

/**
 * The shared idempotency store the callback endpoint claims keys in, chosen by {@code
 * delayed-tasks.idempotency.store}:
 *
 * <ul>
 *   <li>{@code redis}: a {@link RedisIdempotencyStore} over your {@link UnifiedJedis} bean (a
 *       {@code JedisPooled}); artifact {@code delayed-tasks-redis}. {@code
 *       delayed-tasks.idempotency.namespace} (default {@code delayed-tasks:idem:}).
 *   <li>{@code jdbc}: a {@link SqlIdempotencyStore} over the application's {@link DataSource};
 *       artifact {@code delayed-tasks-jdbc}. {@code delayed-tasks.idempotency.table} (default
 *       {@code delayed_tasks_idempotency}), created at startup unless {@code
 *       delayed-tasks.idempotency.migrate=false}.
 * </ul>
 *
 * <p>A store named without its bean (no {@code UnifiedJedis}, no {@code DataSource}) fails the
 * startup. Otherwise (or with an {@link IdempotencyStore} bean of your own) nothing here applies,
 * and the in-memory store of {@link DelayedTasksAutoConfiguration} serves one process.
 */
@AutoConfiguration(
    before = DelayedTasksAutoConfiguration.class,
    afterName = "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration")
public class DelayedTasksStoresAutoConfiguration {
  private static final String PREFIX = "delayed-tasks.idempotency";

  /** {@code delayed-tasks.idempotency.store=redis}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({RedisIdempotencyStore.class, UnifiedJedis.class})
  @ConditionalOnProperty(prefix = PREFIX, name = "store", havingValue = "redis")
  static class Redis {
    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore delayedTasksIdempotencyStore(
        ObjectProvider<UnifiedJedis> jedisBean, Environment environment) {
      UnifiedJedis jedis = jedisBean.getIfAvailable();
      if (jedis == null) { // never fall back to memory silently: replicas would run effects twice
        throw new IllegalStateException(
            PREFIX + ".store=redis needs a UnifiedJedis bean (a JedisPooled)");
      }
      return RedisIdempotencyStore.builder(jedis)
          .namespace(
              environment.getProperty(
                  PREFIX + ".namespace", RedisIdempotencyStore.DEFAULT_NAMESPACE))
          .build();
    }
  }

  /** {@code delayed-tasks.idempotency.store=jdbc}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(SqlIdempotencyStore.class)
  @ConditionalOnProperty(prefix = PREFIX, name = "store", havingValue = "jdbc")
  static class Jdbc {
    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    IdempotencyStore delayedTasksIdempotencyStore(
        ObjectProvider<DataSource> dataSourceBean, Environment environment) {
      DataSource dataSource = dataSourceBean.getIfAvailable();
      if (dataSource == null) {
        throw new IllegalStateException(PREFIX + ".store=jdbc needs a DataSource bean");
      }
      SqlIdempotencyStore store =
          SqlIdempotencyStore.builder(dataSource)
              .table(environment.getProperty(PREFIX + ".table", SqlIdempotencyStore.DEFAULT_TABLE))
              .build();
      if (environment.getProperty(PREFIX + ".migrate", Boolean.class, true)) {
        store.migrate();
      }
      return store;
    }
  }
}
