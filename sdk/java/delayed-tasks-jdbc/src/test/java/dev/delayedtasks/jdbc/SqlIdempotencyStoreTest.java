package dev.delayedtasks.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.delayedtasks.client.callback.Claim;
import dev.delayedtasks.client.callback.ClaimResult;
import dev.delayedtasks.client.stores.Fleet;
import dev.delayedtasks.client.stores.Servers;
import dev.delayedtasks.client.stores.StoreVectors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The SQL store and its inbox against a real PostgreSQL ({@code DTS_POSTGRES_URL}). */
class SqlIdempotencyStoreTest {
  private static final String RUN = UUID.randomUUID().toString().substring(0, 8);
  private static HikariDataSource dataSource;
  private static String url;
  private static final List<String> tables = new ArrayList<>();

  @BeforeAll
  static void connect() {
    url = Servers.required("DTS_POSTGRES_URL");
    dataSource = PgStores.dataSource(url, 20);
  }

  @AfterAll
  static void dropTables() throws SQLException {
    if (dataSource == null) {
      return;
    }
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String table : tables) {
        s.execute("DROP TABLE IF EXISTS " + table);
      }
    }
    dataSource.close();
  }

  private static String table(String name) {
    String table = "t_" + RUN + "_" + name;
    tables.add(table);
    return table;
  }

  private static SqlIdempotencyStore store(String table) {
    SqlIdempotencyStore store = SqlIdempotencyStore.builder(dataSource).table(table).build();
    store.migrate();
    return store;
  }

  /** The inbox of the vectors: a business table of its own per case. */
  private static StoreVectors.Inbox inbox(SqlIdempotencyStore store) throws SQLException {
    String business = table("orders_" + tables.size());
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE " + business + " (id serial primary key, key text not null)");
    }
    return new StoreVectors.Inbox() {
      @Override
      public String run(String key, boolean fail) throws Exception {
        try (Connection c = dataSource.getConnection()) {
          boolean ran =
              store.runInTransaction(
                  c,
                  key,
                  conn -> {
                    try (PreparedStatement s =
                        conn.prepareStatement("INSERT INTO " + business + " (key) VALUES (?)")) {
                      s.setString(1, key);
                      s.executeUpdate();
                    }
                    if (fail) {
                      throw new IllegalStateException("the effect failed after its write");
                    }
                  });
          return ran ? "COMMITTED" : "DUPLICATE";
        } catch (IllegalStateException e) {
          return "ROLLED_BACK";
        }
      }

      @Override
      public long countRows() throws Exception {
        return count("SELECT count(*) FROM " + business);
      }
    };
  }

  private static long count(String sql) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      r.next();
      return r.getLong(1);
    }
  }

  @TestFactory
  Stream<DynamicTest> conformanceVectors() throws Exception {
    SqlIdempotencyStore store = store(table("vectors"));
    return StoreVectors.tests(() -> store, () -> inbox(store));
  }

  @Test
  void aDuplicateInboxBlocksOnTheOpenTransactionThenSeesDone() throws Exception {
    SqlIdempotencyStore store = store(table("block"));
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try (Connection first = dataSource.getConnection()) {
      first.setAutoCommit(false); // the caller's transaction, as @Transactional opens it
      assertTrue(store.runInTransaction(first, "k", c -> {}));
      CountDownLatch started = new CountDownLatch(1);
      Future<Boolean> duplicate =
          pool.submit(
              () -> {
                try (Connection second = dataSource.getConnection()) {
                  started.countDown();
                  return store.runInTransaction(second, "k", c -> {});
                }
              });
      started.await();
      // The duplicate's INSERT waits on the row this open transaction holds.
      assertThrows(
          java.util.concurrent.TimeoutException.class,
          () -> duplicate.get(300, java.util.concurrent.TimeUnit.MILLISECONDS));
      first.commit();
      assertFalse(duplicate.get(), "after the commit the duplicate sees the key done");
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theHolderOfAClaimMarksItDoneInItsTransaction() throws Exception {
    SqlIdempotencyStore store = store(table("holder"));
    Claim claim = store.claim("k", Duration.ofMinutes(1));
    try (Connection c = dataSource.getConnection()) {
      assertTrue(store.runInTransaction(c, "k", conn -> {}), "a receiver's claim, then the inbox");
    }
    assertEquals(ClaimResult.DONE, store.claim("k", Duration.ofMinutes(1)).result());
    store.release("k", claim.token()); // a late release does not undo the done mark
    assertEquals(ClaimResult.DONE, store.claim("k", Duration.ofMinutes(1)).result());
  }

  @Test
  void purgeExpiredDeletesOnlyExpiredRows() {
    SqlIdempotencyStore store = store(table("purge"));
    store.claim("short", Duration.ofMillis(1));
    store.claim("long", Duration.ofMinutes(1));
    long deadline = System.nanoTime() + 5_000_000_000L;
    int purged = 0;
    while (purged == 0 && System.nanoTime() < deadline) {
      purged = store.purgeExpired(); // polls until the 1 ms claim has expired
    }
    assertEquals(1, purged);
    assertEquals(ClaimResult.IN_PROGRESS, store.claim("long", Duration.ofMinutes(1)).result());
  }

  /** Issue 42's fleet test: 3 receiver processes, 1,000 keys each delivered to all at once. */
  @Test
  void aFleetOfThreeReceiversRunsEachEffectOnceAndAKilledOneIsRetriedOnce() throws Exception {
    String table = table("fleet");
    store(table);
    Fleet.Result r =
        new Fleet(PgStores.class, url + "#" + table, 3, Duration.ofSeconds(2)).run(1000);
    System.out.println("sql fleet: " + r);
    assertEquals(1000, r.effects(), r.toString());
    assertEquals(0, r.doubles(), r.toString());
    assertEquals(0, r.missing(), r.toString());
    assertEquals(1000, r.answers().get("200 {\"status\":\"handled\"}"), r.toString());
    assertEquals(1, r.crashedKeyEffects(), r.toString());
    assertTrue(
        r.crashedKeyLastAnswer().matches("200 .*handled.* then 200 .*duplicate.*"), r.toString());
  }
}
