package org.fencekit.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.Version;
import org.fencekit.store.etcd.EtcdOrderStore;
import org.fencekit.testsupport.TestEtcd;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The starter over the three-member etcd cluster, named by {@code fencekit.store} as {@code
 * etcd://HOST:PORT,HOST:PORT,HOST:PORT/KEY_PREFIX} with a key prefix of this class's own; jetcd
 * 0.8.5 (built on Netty 4.1) runs on the Netty Boot manages (4.2), not pinned.
 */
class EtcdStarterTest extends StarterContract {

  @RegisterExtension static final TestEtcd.ClassKeys ETCD = TestEtcd.cluster("starter");

  @DynamicPropertySource
  static void properties(DynamicPropertyRegistry properties) {
    properties.add("fencekit.store", EtcdStarterTest::storeUrl);
    // this module's tests have spring-boot-starter-jdbc (for PostgreSQL) and no embedded database
    properties.add("spring.autoconfigure.exclude", () -> DATA_SOURCE_AUTO_CONFIGURATION);
    stripe(properties);
  }

  private static String storeUrl() {
    return "etcd://" + ETCD.endpoints().replace("http://", "") + "/" + ETCD.prefix();
  }

  @Test
  void theStoreIsOnEveryMemberOfTheCluster() {
    assertInstanceOf(EtcdOrderStore.class, store, store.toString());
    for (String member : ETCD.endpoints().split(",")) {
      assertTrue(store.toString().contains(member.strip()), member + " in " + store);
    }
    assertTrue(store.toString().contains("keyPrefix=" + ETCD.prefix()), store.toString());
  }

  /**
   * What the README tells a Boot application: no Netty pin for etcd. If Boot's Netty moves on (or
   * this build pins another), this says so, and the README's sentence must be checked again.
   */
  @Test
  void jetcdRunsOnTheNettyBootManages() {
    String netty = Version.identify().get("netty-common").artifactVersion();
    assertEquals("4.2", netty.substring(0, netty.indexOf('.', 2)), "Netty " + netty);
  }
}
