package org.fencekit.admin;

import org.fencekit.testsupport.TestEtcd;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The admin jar on the three-member etcd cluster, under a key prefix of its own. */
class EtcdAdminIT extends AdminQueriesContract {

  @RegisterExtension static final TestEtcd.ClassKeys ETCD = TestEtcd.cluster("admin");

  @Override
  String storeSpec() {
    return "etcd://" + ETCD.endpoints().replace("http://", "");
  }

  @Override
  String keyPrefix() {
    return ETCD.prefix();
  }

  /** No member listens on port 1; an etcd URL holds no password, so none can show. */
  @Override
  String unreachableSpec() {
    return "etcd://127.0.0.1:1";
  }
}
