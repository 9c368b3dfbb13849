package org.fencekit.spring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The starter over a SQLite file of its own, named by {@code fencekit.store}. */
class SqliteStarterTest extends StarterContract {

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry properties) throws IOException {
    Path directory = Files.createTempDirectory("fencekit-starter");
    properties.add("fencekit.store", () -> "sqlite:" + directory.resolve("orders.db"));
    // this module's tests have spring-boot-starter-jdbc (for PostgreSQL) and no embedded database
    properties.add("spring.autoconfigure.exclude", () -> DATA_SOURCE_AUTO_CONFIGURATION);
    stripe(properties);
  }
}
