package org.fencekit.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An etcd cluster of a test's own, on free loopback ports ({@link LoopbackPorts#closedWith}: each
 * member's client port and the peer port after it): three members for tests that kill, pause or
 * restart members, one for a test that reads counters no other client adds to. Skips the test if
 * etcd is not installed (fails with {@code FENCEKIT_REQUIRE_BACKENDS=true}).
 */
public final class OwnEtcdCluster implements AutoCloseable {

  private final List<OwnEtcd> members;

  private OwnEtcdCluster(List<OwnEtcd> members) {
    this.members = List.copyOf(members);
  }

  /** Starts three members and returns once one of them leads the cluster. */
  public static OwnEtcdCluster start() {
    return start(3);
  }

  /** Starts {@code size} members (at least 1) and returns once one of them leads the cluster. */
  public static OwnEtcdCluster start(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("an etcd cluster has at least 1 member, got " + size);
    }
    OwnServer.requireBinary(OwnEtcd.SERVER, "an etcd cluster of the test's own");
    int[] ports = new int[size];
    for (int i = 0; i < size; i++) {
      ports[i] = LoopbackPorts.closedWith(1);
    }
    StringBuilder initial = new StringBuilder();
    for (int i = 0; i < ports.length; i++) {
      initial.append(i == 0 ? "" : ",").append("m" + i + "=http://127.0.0.1:" + (ports[i] + 1));
    }
    List<OwnEtcd> members = new ArrayList<>();
    try {
      for (int i = 0; i < ports.length; i++) {
        members.add(new OwnEtcd("m" + i, ports[i], initial.toString()));
      }
      members.forEach(OwnEtcd::launch);
      OwnEtcdCluster cluster = new OwnEtcdCluster(members);
      cluster.awaitLeader(30_000);
      return cluster;
    } catch (RuntimeException e) {
      members.forEach(OwnEtcd::close);
      throw e;
    }
  }

  /** The members' client URLs, {@code http://127.0.0.1:p0,...}, as a store takes them. */
  public String endpoints() {
    return members.stream().map(OwnEtcd::endpoint).collect(Collectors.joining(","));
  }

  /** The members. */
  public List<OwnEtcd> members() {
    return members;
  }

  /** The member that leads now; waits up to 30 s for one. */
  public OwnEtcd leader() {
    return awaitLeader(30_000);
  }

  /** The member that leads, once one does; fails after {@code millis}. */
  public OwnEtcd awaitLeader(long millis) {
    OwnEtcd[] found = new OwnEtcd[1];
    boolean led =
        OwnServer.poll(
            millis,
            50,
            () -> {
              for (OwnEtcd member : members) {
                if (member.leads()) {
                  found[0] = member;
                  return true;
                }
              }
              return false;
            });
    if (!led) {
      throw new IllegalStateException("no member of " + this + " leads after " + millis + " ms");
    }
    return found[0];
  }

  /** Stops every member and deletes their data. */
  @Override
  public void close() {
    members.forEach(OwnEtcd::close);
  }

  @Override
  public String toString() {
    return "etcd cluster " + endpoints();
  }
}
