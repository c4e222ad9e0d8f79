package dev.delayedtasks.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import dev.delayedtasks.client.stores.Servers;
import dev.delayedtasks.client.stores.StoreBench;
import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * Prints the SQL store's overhead per callback (p50/p99) over a HikariCP pool; not a timed test:
 * {@code mvn -q test -pl delayed-tasks-jdbc -Dtest=StoreOverheadBench -Dbench=true}.
 */
@EnabledIfSystemProperty(named = "bench", matches = "true")
class StoreOverheadBench {
  @Test
  void printOverhead() throws Exception {
    try (HikariDataSource dataSource =
        PgStores.dataSource(Servers.required("DTS_POSTGRES_URL"), 4)) {
      SqlIdempotencyStore store =
          SqlIdempotencyStore.builder(dataSource).table("bench_idempotency").build();
      store.migrate();
      StoreBench.run("sql", store, 5000);
      try (Connection c = dataSource.getConnection();
          Statement s = c.createStatement()) {
        s.execute("DROP TABLE bench_idempotency");
      }
    }
  }
}
