package org.fencekit.server;

import org.fencekit.testsupport.TestEtcd;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The black-box runner against two server processes on one etcd cluster (an {@code etcd://} store
 * string naming every member and a key prefix of its own, deleted afterwards): signed Stripe events
 * fulfilled across processes. Skipped, saying how to enable it, without {@code
 * FENCEKIT_ETCD_ENDPOINTS}; failed instead with {@code FENCEKIT_REQUIRE_BACKENDS=true}.
 */
class EtcdBlackBoxRunIT extends BlackBoxRunContract {

  @RegisterExtension static final TestEtcd.ClassKeys ETCD = TestEtcd.cluster("blackbox");

  @Override
  String storeSpec() {
    return "etcd://" + ETCD.endpoints().replace("http://", "") + "/" + ETCD.prefix();
  }
}
