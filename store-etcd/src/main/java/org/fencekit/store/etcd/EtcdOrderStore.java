package org.fencekit.store.etcd;

import io.grpc.ClientInterceptor;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.fencekit.store.spi.FencedAdminOrderStore;
import org.fencekit.store.spi.StoreBuilder;
import org.fencekit.store.spi.Validate;

/**
 * An {@link org.fencekit.store.OrderStore} on etcd (API v3, servers 3.4 and newer): a write is
 * acknowledged only once a majority of the cluster's members has it, so no acknowledged settle is
 * lost when a member dies, and the fence never goes back.
 *
 * <p>Algorithm, per operation:
 *
 * <ol>
 *   <li>validate the arguments;
 *   <li>take the order as this store last wrote or read it ({@code LastSeen}: its record and {@code
 *       mod_revision}), else as absent (a first claim): a guess, sent nowhere, that the transaction
 *       below checks;
 *   <li>decide with {@link org.fencekit.store.spi.OrderStateMachine} on the store's clock; a
 *       decision that writes nothing (in flight, provisioned, superseded, a replay, no order) is
 *       answered only from a linearizable read of the order (through the leader's read index),
 *       never from a guess;
 *   <li>send ONE transaction: if the order's {@code mod_revision} is still the one guessed or read
 *       (or its {@code create_revision} is 0), put the new record and move its keys in the
 *       listings' indexes (claims by lease end, FAILED orders by first failure, unreconciled
 *       orphans by recording time), else read the order (a transaction that writes goes through
 *       Raft: that read is linearizable): a lost race or a stale guess is decided again on what
 *       that read returns, at most {@value EtcdStorage#COMPARE_RETRIES} times;
 *   <li>a transaction whose answer is lost (a deadline, a member gone: the write may still land) is
 *       never sent again blind: the order is read back, and if it changed, its earlier versions
 *       tell whether the first write after the revision compared was ours (each value carries the
 *       random id of the transaction that wrote it); if it was, its decision is the answer, if not
 *       none of ours can land and the call decides again; if nothing can be told in time the call
 *       throws {@link org.fencekit.store.StoreUnavailableException} with {@code outcomeUnknown}; a
 *       transaction for which gRPC never opened a stream to a member ({@code Unsent}) changed
 *       nothing, and is tried again like a read.
 * </ol>
 *
 * A lease runs out on the store's {@link Clock} (the clock of the process that decides): keep the
 * clocks of the processes sharing a store in step (NTP).
 */
public final class EtcdOrderStore extends FencedAdminOrderStore {

  private final String description;

  private EtcdOrderStore(EtcdStorage storage, Clock clock, String description) {
    super(storage, clock);
    this.description = description;
  }

  /** A builder; give it {@link Builder#endpoints} or {@link Builder#url}. */
  public static Builder builder() {
    return new Builder();
  }

  /** The members and the key prefix, never a credential. */
  @Override
  public String toString() {
    return description;
  }

  /**
   * Builds an {@link EtcdOrderStore}. Exactly one of {@link #endpoints} or {@link #url} must be
   * given; {@link #build()} checks every property and names the bad one.
   */
  public static final class Builder extends StoreBuilder<Builder> {

    private String endpoints;
    private String url;
    private String keyPrefix;
    private Duration timeout = Duration.ofSeconds(5);
    private final List<ClientInterceptor> interceptors = new ArrayList<>();

    private Builder() {}

    /** An interceptor of the client's gRPC calls, after the deadline's (tests lose answers). */
    Builder interceptor(ClientInterceptor interceptor) {
      interceptors.add(Validate.notNull("interceptor", interceptor));
      return this;
    }

    /**
     * The cluster's members, {@code http://host:port,http://host:port} (etcdctl's {@code
     * --endpoints}); the store's client spreads its calls over them and closes on {@code close()}.
     */
    public Builder endpoints(String endpoints) {
      this.endpoints = endpoints;
      return this;
    }

    /** The cluster as one URL, {@value EtcdAddress#URL_FORM}: the members and a key prefix. */
    public Builder url(String url) {
      this.url = url;
      return this;
    }

    /**
     * The prefix of every key the store writes; 1 to 64 of {@code [A-Za-z0-9_:.-]}. Default {@code
     * "fencekit:"}, or the prefix {@link #url} names.
     */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
      return this;
    }

    /**
     * Each call's deadline (a read, a transaction); from 100 ms to 10 minutes, default 5 seconds. A
     * call that meets failures (an election, a member gone) keeps trying for three times this, then
     * throws {@link org.fencekit.store.StoreUnavailableException}.
     */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * Checks every property and builds the store; starts connecting in the background (a cluster
     * that is down fails the first call, not this).
     *
     * @throws IllegalArgumentException or {@link NullPointerException} naming a bad property
     */
    public EtcdOrderStore build() {
      Clock clock = checkedClock();
      Validate.notNull("timeout", timeout);
      if (timeout.compareTo(Duration.ofMillis(100)) < 0
          || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException(
            "timeout must be from 100 ms to 10 minutes, got " + timeout);
      }
      if ((endpoints == null) == (url == null)) {
        throw new IllegalArgumentException(
            "give exactly one of endpoints or url, got "
                + (endpoints == null ? "neither" : "both")
                + "; for example EtcdOrderStore.builder().endpoints(\"http://127.0.0.1:2379\")");
      }
      List<URI> members;
      String prefix = keyPrefix;
      if (url != null) {
        EtcdAddress address = EtcdAddress.parseUrl(url);
        members = address.endpoints();
        if (address.keyPrefix() != null) {
          if (keyPrefix != null && !keyPrefix.equals(address.keyPrefix())) {
            throw new IllegalArgumentException(
                "keyPrefix "
                    + Validate.quote(keyPrefix)
                    + " and the url's key prefix "
                    + Validate.quote(address.keyPrefix())
                    + " differ; give one of them");
          }
          prefix = address.keyPrefix();
        }
      } else {
        members = EtcdAddress.parseEndpoints(endpoints);
      }
      EtcdKeys keys = new EtcdKeys(prefix == null ? "fencekit:" : prefix);
      EtcdClient client = new EtcdClient(members, timeout, List.copyOf(interceptors));
      return new EtcdOrderStore(
          new EtcdStorage(client, keys, timeout.multipliedBy(3)),
          clock,
          "EtcdOrderStore[" + members + ", keyPrefix=" + keys.prefix() + "]");
    }
  }
}
