package org.fencekit.store.jdbc;

import org.fencekit.store.spi.StoreBuilder;
import org.fencekit.store.spi.Validate;

/**
 * What the SQL stores' builders share beyond the clock: the names of the two tables and whether the
 * store creates and upgrades its schema ({@link Migrations}). {@code build()} takes them through
 * {@link #checkedTables} and {@link #createsSchema}.
 *
 * @param <B> the store's builder, which every setter returns
 */
public abstract class JdbcStoreBuilder<B extends JdbcStoreBuilder<B>> extends StoreBuilder<B> {

  /** The default name of the orders table. */
  public static final String DEFAULT_ORDERS_TABLE = "fencekit_orders";

  /** The default name of the orphans table. */
  public static final String DEFAULT_ORPHANS_TABLE = "fencekit_orphans";

  /**
   * The two table names, each checked as a plain identifier, and not the same one.
   *
   * @param orders the orders table
   * @param orphans the orphans table
   */
  protected record Tables(String orders, String orphans) {}

  private String ordersTable = DEFAULT_ORDERS_TABLE;
  private String orphansTable = DEFAULT_ORPHANS_TABLE;
  private boolean createSchema;

  /**
   * @param createSchema the store's default for {@link #createSchema(boolean)}
   */
  protected JdbcStoreBuilder(boolean createSchema) {
    this.createSchema = createSchema;
  }

  /**
   * The orders table: a plain identifier (for SQLite, not starting with {@code sqlite_}); default
   * {@value #DEFAULT_ORDERS_TABLE}.
   *
   * @return this builder
   */
  public final B ordersTable(String ordersTable) {
    this.ordersTable = ordersTable;
    return self();
  }

  /**
   * The orphans table: a plain identifier (for SQLite, not starting with {@code sqlite_}), other
   * than the orders table; default {@value #DEFAULT_ORPHANS_TABLE}.
   *
   * @return this builder
   */
  public final B orphansTable(String orphansTable) {
    this.orphansTable = orphansTable;
    return self();
  }

  /**
   * Whether {@code build()} creates the tables if they are missing and upgrades an older schema, by
   * running the missing {@code db/migration/fencekit/<store>/V*.sql} scripts of the store's jar in
   * one transaction; stores starting at once take turns, so one of them upgrades. With false, run
   * the scripts from your own migrations: {@code build()} refuses a schema older than the store
   * needs (or no tables), naming them. Default true for SQLite, whose file is the store's own;
   * false for PostgreSQL, which checks the CREATE privilege (on the database for a schema, on the
   * schema for the tables) even when they exist, so a least-privilege user should leave it off.
   *
   * @return this builder
   */
  public final B createSchema(boolean createSchema) {
    this.createSchema = createSchema;
    return self();
  }

  /**
   * The table names, for {@code build()}: each passes {@link #checkTable}, and they differ ignoring
   * case.
   *
   * @param caseRule why names that differ only in case are one table, for the message
   * @throws NullPointerException naming the table property that is null
   * @throws IllegalArgumentException naming the table property that is bad
   */
  protected final Tables checkedTables(String caseRule) {
    checkTable("ordersTable", ordersTable);
    checkTable("orphansTable", orphansTable);
    if (ordersTable.equalsIgnoreCase(orphansTable)) {
      throw new IllegalArgumentException(
          "orphansTable must differ from ordersTable, both are '"
              + ordersTable
              + "' ("
              + caseRule
              + ")");
    }
    return new Tables(ordersTable, orphansTable);
  }

  /**
   * Checks one table name: a plain identifier ({@link Validate#identifier}); a store adds its own
   * rules.
   *
   * @param property the builder property, for the message
   */
  protected void checkTable(String property, String name) {
    Validate.identifier(property, name);
  }

  /** Whether {@code build()} creates and upgrades the schema. */
  protected final boolean createsSchema() {
    return createSchema;
  }
}
