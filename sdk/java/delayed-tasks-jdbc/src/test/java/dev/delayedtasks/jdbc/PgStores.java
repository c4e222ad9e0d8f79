package dev.delayedtasks.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.stores.StoreFactory;
import java.net.URI;
import java.time.Duration;

/**
 * A pooled {@code DataSource} from {@code DTS_POSTGRES_URL} ({@code
 * postgres://user[:password]@host:port/db} or {@code jdbc:postgresql://...}), and the store the
 * fleet's receivers share ({@code #table} after the URL names the table).
 */
public final class PgStores implements StoreFactory {
  public static HikariDataSource dataSource(String url, int poolSize) {
    HikariConfig config = new HikariConfig();
    if (url.startsWith("jdbc:")) {
      config.setJdbcUrl(url);
    } else {
      URI uri = URI.create(url);
      config.setJdbcUrl(
          "jdbc:postgresql://"
              + uri.getHost()
              + ":"
              + (uri.getPort() < 0 ? 5432 : uri.getPort())
              + uri.getPath());
      String userInfo = uri.getUserInfo();
      if (userInfo != null) {
        String[] parts = userInfo.split(":", 2);
        config.setUsername(parts[0]);
        if (parts.length == 2) {
          config.setPassword(parts[1]);
        }
      }
    }
    config.setMaximumPoolSize(poolSize);
    return new HikariDataSource(config);
  }

  @Override
  public IdempotencyStore open(String url) {
    int hash = url.indexOf('#');
    return SqlIdempotencyStore.builder(dataSource(url.substring(0, hash), 16))
        .table(url.substring(hash + 1))
        .doneTtl(Duration.ofHours(1))
        .build();
  }
}
