package dev.delayedtasks.jdbc;

import dev.delayedtasks.client.callback.Claim;
import dev.delayedtasks.client.callback.IdempotencyStore;
import dev.delayedtasks.client.callback.IdempotencyStores;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Objects;
import java.util.UUID;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The {@link IdempotencyStore} of a fleet in PostgreSQL, over plain JDBC: table {@code
 * delayed_tasks_idempotency (key text primary key, state text not null, token text, expires_at
 * timestamptz not null)}, created by {@link #migrate()} (also shipped as {@code
 * dev/delayedtasks/jdbc/schema.sql}). A key longer than 200 bytes is stored as its SHA-256 hex.
 *
 * <ul>
 *   <li>{@link #claim}: {@code INSERT ... ON CONFLICT (key) DO UPDATE ... WHERE expires_at <
 *       now()}: one row affected wins; one statement, one round trip.
 *   <li>{@link #complete}: the row becomes {@code done} until the done TTL (one round trip).
 *   <li>{@link #release}: deletes the row while it still holds this claim's token.
 *   <li>{@link #runInTransaction}: the inbox. It inserts the key as {@code done} in the caller's
 *       transaction before the effect, so the business write and the mark commit or roll back
 *       together; a concurrent duplicate blocks on the row, then sees it done.
 * </ul>
 *
 * <p>{@link #claim}, {@link #complete} and {@link #release} take a connection of the {@link
 * DataSource} each (use a pool) and run in auto-commit. Rows past their expiry stay until {@link
 * #purgeExpired()} deletes them (a scheduled job, daily).
 */
public final class SqlIdempotencyStore implements IdempotencyStore {
  /** The table unless {@link Builder#table} says otherwise. */
  public static final String DEFAULT_TABLE = "delayed_tasks_idempotency";

  private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

  /** The business effect of {@link #runInTransaction}, on the caller's connection. */
  @FunctionalInterface
  public interface Effect {
    void run(Connection connection) throws Exception;
  }

  private final DataSource dataSource;
  private final String table;
  private final Duration doneTtl;
  private final String claimSql;
  private final String completeSql;
  private final String releaseSql;
  private final String inboxSql;

  /** Table {@code delayed_tasks_idempotency}, done TTL 7 days. */
  public SqlIdempotencyStore(DataSource dataSource) {
    this(builder(dataSource));
  }

  private SqlIdempotencyStore(Builder b) {
    this.dataSource = b.dataSource;
    this.table = b.table;
    this.doneTtl = b.doneTtl;
    String insert =
        "INSERT INTO "
            + table
            + " AS t (key, state, token, expires_at) VALUES (?, ?, ?, now() + ? * interval '1"
            + " millisecond') ON CONFLICT (key) DO UPDATE SET state = excluded.state, token ="
            + " excluded.token, expires_at = excluded.expires_at";
    // The outer SELECT reads the statement's snapshot: a row another claim inserted meanwhile is
    // not in it, so that case answers IN_PROGRESS (its holder is still running, or just finished).
    this.claimSql =
        "WITH claimed AS ("
            + insert
            + " WHERE t.expires_at < now() RETURNING 1) SELECT (SELECT count(*) FROM claimed),"
            + " (SELECT state FROM "
            + table
            + " WHERE key = ?)";
    this.completeSql = insert;
    this.releaseSql = "DELETE FROM " + table + " WHERE key = ? AND state = 'claimed' AND token = ?";
    // The holder of a claim (this store's receiver or worker) marks it done; anyone else only a
    // key that is absent or expired.
    this.inboxSql = insert + " WHERE t.state = 'claimed' OR t.expires_at < now()";
  }

  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /** Creates the table and its index if they are missing ({@code schema.sql}). */
  public void migrate() {
    String ddl;
    try (InputStream in = SqlIdempotencyStore.class.getResourceAsStream("schema.sql")) {
      ddl =
          new String(
              Objects.requireNonNull(in, "schema.sql").readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ddl = ddl.replaceAll("(?m)^--.*$", "").replace(DEFAULT_TABLE, table);
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      for (String statement : ddl.split(";")) {
        if (!statement.isBlank()) {
          s.execute(statement);
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("creating " + table + " failed", e);
    }
  }

  @Override
  public Claim claim(String key, Duration claimTtl) {
    long ttl = IdempotencyStores.millis(claimTtl, "claimTtl");
    String token = UUID.randomUUID().toString();
    String stored = IdempotencyStores.boundedKey(key);
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(claimSql)) {
      s.setString(1, stored);
      s.setString(2, "claimed");
      s.setString(3, token);
      s.setLong(4, ttl);
      s.setString(5, stored);
      try (ResultSet r = s.executeQuery()) {
        r.next();
        if (r.getLong(1) == 1) {
          return Claim.claimed(token);
        }
        return "done".equals(r.getString(2)) ? Claim.done() : Claim.inProgress();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("claim failed", e);
    }
  }

  @Override
  public void complete(String key) {
    try (Connection c = dataSource.getConnection()) {
      markDone(c, completeSql, key);
    } catch (SQLException e) {
      throw new IllegalStateException("complete failed", e);
    }
  }

  @Override
  public void release(String key, String token) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s = c.prepareStatement(releaseSql)) {
      s.setString(1, IdempotencyStores.boundedKey(key));
      s.setString(2, token);
      s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("release failed", e);
    }
  }

  /**
   * The inbox: marks the key done on {@code connection}, then runs the effect there, so both commit
   * or roll back together. In a transaction the caller opened (auto-commit off: Spring's
   * {@code @Transactional} with {@code DataSourceUtils.getConnection(dataSource)}), it neither
   * commits nor rolls back: the caller does. On a connection in auto-commit, it opens the
   * transaction itself, commits after the effect, rolls back when the effect throws, and restores
   * auto-commit.
   *
   * <p>A concurrent duplicate blocks on the row until this transaction ends, then sees the key done
   * (or, after a rollback, runs). Use READ COMMITTED (PostgreSQL's default): under REPEATABLE READ
   * the duplicate fails with a serialization error instead. Used alone or behind this same store's
   * claim (a receiver or worker built with it): the claim's holder marks its key done here.
   *
   * @return true when the effect ran, false for a duplicate (the key was done; nothing ran)
   * @throws Exception what the effect threw, after the rollback when the transaction is this
   *     method's
   */
  public boolean runInTransaction(Connection connection, String key, Effect effect)
      throws Exception {
    Objects.requireNonNull(effect, "effect");
    boolean own = connection.getAutoCommit();
    if (own) {
      connection.setAutoCommit(false);
    }
    try {
      boolean marked = markDone(connection, inboxSql, key) == 1;
      if (marked) {
        effect.run(connection);
      }
      if (own) {
        connection.commit();
      }
      return marked;
    } catch (Exception | Error e) {
      if (own) {
        try {
          connection.rollback();
        } catch (SQLException rollbackFailed) {
          e.addSuppressed(rollbackFailed);
        }
      }
      throw e;
    } finally {
      if (own) {
        connection.setAutoCommit(true);
      }
    }
  }

  /**
   * Deletes the rows whose claim or done TTL passed.
   *
   * @return rows deleted
   */
  public int purgeExpired() {
    try (Connection c = dataSource.getConnection();
        PreparedStatement s =
            c.prepareStatement("DELETE FROM " + table + " WHERE expires_at < now()")) {
      return s.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("purge failed", e);
    }
  }

  private int markDone(Connection c, String sql, String key) throws SQLException {
    try (PreparedStatement s = c.prepareStatement(sql)) {
      s.setString(1, IdempotencyStores.boundedKey(key));
      s.setString(2, "done");
      s.setString(3, null);
      s.setLong(4, doneTtl.toMillis());
      return s.executeUpdate();
    }
  }

  /** Builds a {@link SqlIdempotencyStore}. */
  public static final class Builder {
    private final DataSource dataSource;
    private String table = DEFAULT_TABLE;
    private Duration doneTtl = DEFAULT_DONE_TTL;

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /** The table (default {@code delayed_tasks_idempotency}); a plain identifier. */
    public Builder table(String table) {
      if (!IDENTIFIER.matcher(Objects.requireNonNull(table, "table")).matches()) {
        throw new IllegalArgumentException("table must be a plain SQL identifier: " + table);
      }
      this.table = table;
      return this;
    }

    /** How long a completed key is remembered (default 7 days). */
    public Builder doneTtl(Duration doneTtl) {
      this.doneTtl = IdempotencyStores.positive(doneTtl, "doneTtl");
      return this;
    }

    public SqlIdempotencyStore build() {
      return new SqlIdempotencyStore(this);
    }
  }
}
