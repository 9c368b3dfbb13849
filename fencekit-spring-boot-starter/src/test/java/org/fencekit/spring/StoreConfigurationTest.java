package org.fencekit.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import javax.sql.DataSource;
import org.fencekit.fulfilment.Provider;
import org.fencekit.server.StripeDeliveries;
import org.fencekit.store.Item;
import org.fencekit.store.OrderStore;
import org.fencekit.store.memory.MemoryOrderStore;
import org.fencekit.store.sqlite.SqliteOrderStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.sqlite.SQLiteDataSource;

/**
 * How the store is chosen, by conditions: {@code fencekit.store} when it holds text (blank is
 * unset), else the application's single DataSource, which must be PostgreSQL; the application's own
 * store over both. A DataSource of another database is refused naming it, never used.
 */
class StoreConfigurationTest {

  @TempDir Path directory;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(FencekitAutoConfiguration.class))
          .withPropertyValues("fencekit.stripe.webhook-secret=" + StripeDeliveries.SECRET)
          .withBean(Provider.class, () -> purchase -> new Item("p", "x"));

  /** A DataSource that answers, of a database that is not PostgreSQL (SQLite). */
  private DataSource notPostgres(String name) {
    SQLiteDataSource dataSource = new SQLiteDataSource();
    dataSource.setUrl("jdbc:sqlite:" + directory.resolve(name));
    return dataSource;
  }

  /** The start failed, its root cause saying each of {@code messages}. */
  private static void assertStartFails(AssertableApplicationContext context, String... messages) {
    for (String message : messages) {
      assertThat(context).getFailure().rootCause().hasMessageContaining(message);
    }
  }

  @Test
  void aBlankStoreStringIsUnsetAndWithoutADataSourceTheStartSaysWhatToSet() {
    runner
        .withPropertyValues("fencekit.store=   ")
        .run(
            context ->
                assertStartFails(context, "fencekit.store is not set", "no single DataSource"));
  }

  @Test
  void theStoreStringWinsOverTheApplicationsDataSource() throws Exception {
    Path file = Files.createDirectories(directory.resolve("own")).resolve("orders.db");
    runner
        .withPropertyValues("fencekit.store=sqlite:" + file)
        .withBean(DataSource.class, () -> notPostgres("app.db"))
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(OrderStore.class)).isInstanceOf(SqliteOrderStore.class);
            });
  }

  @Test
  void withoutAStoreStringADataSourceThatIsNotPostgresIsRefusedByName() {
    runner
        .withBean(DataSource.class, () -> notPostgres("app.db"))
        .run(
            context ->
                assertStartFails(
                    context,
                    "the application's DataSource is SQLite, not PostgreSQL",
                    "set fencekit.store"));
  }

  @Test
  void aBlankStoreStringFallsToTheDataSource() {
    runner
        .withPropertyValues("fencekit.store=")
        .withBean(DataSource.class, () -> notPostgres("app.db"))
        .run(context -> assertStartFails(context, "DataSource is SQLite, not PostgreSQL"));
  }

  @Test
  void ofTwoDataSourcesNeitherIsChosen() {
    runner
        .withBean("one", DataSource.class, () -> notPostgres("one.db"))
        .withBean("two", DataSource.class, () -> notPostgres("two.db"))
        .run(context -> assertStartFails(context, "no single DataSource"));
  }

  @Test
  void theApplicationsOwnStoreIsUsedWhateverItsDataSource() {
    MemoryOrderStore own = new MemoryOrderStore(Clock.systemUTC());
    runner
        .withBean(DataSource.class, () -> notPostgres("app.db"))
        .withBean("myStore", OrderStore.class, () -> own)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(OrderStore.class)).isSameAs(own);
            });
  }
}
