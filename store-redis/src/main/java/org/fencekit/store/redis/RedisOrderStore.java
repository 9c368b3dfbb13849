package org.fencekit.store.redis;

import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.fencekit.store.ClaimId;
import org.fencekit.store.ClaimResult;
import org.fencekit.store.Item;
import org.fencekit.store.OrderField;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStore;
import org.fencekit.store.OrderStoreAdmin;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanId;
import org.fencekit.store.OrphanRecord;
import org.fencekit.store.Page;
import org.fencekit.store.ReconcileResult;
import org.fencekit.store.StoreUnavailableException;
import org.fencekit.store.UnknownOrderException;
import org.fencekit.store.WriteResult;
import org.fencekit.store.redis.LuaScript.Arg;
import org.fencekit.store.spi.ClaimRequest;
import org.fencekit.store.spi.Credentials;
import org.fencekit.store.spi.FencedAdmin;
import org.fencekit.store.spi.HeldClaims;
import org.fencekit.store.spi.OrderStateMachine;
import org.fencekit.store.spi.StoreBuilder;
import org.fencekit.store.spi.Validate;
import org.fencekit.store.spi.WriteRequest;
import redis.clients.jedis.ConnectionPoolConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.providers.ClusterConnectionProvider;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.util.JedisURIHelper;

/**
 * An {@link OrderStore} on Redis 7 or later, a single node or a Redis Cluster, through one Jedis
 * {@link UnifiedJedis} client ({@link RedisClient} for a node, {@link RedisClusterClient} for a
 * cluster, or the user's own). Each order is a hash with its orphans beside it, all under one hash
 * tag, so every script touches one cluster slot ({@link OrderKeys}, {@link HashCodec}).
 *
 * <p>Per claim, complete, fail or extend:
 *
 * <ol>
 *   <li>validate every argument ({@link ClaimRequest}, {@link WriteRequest}), so bad input never
 *       reaches Redis;
 *   <li>read the {@link Clock} once, at millisecond precision, compute {@code now + lease} (with
 *       {@link Builder#serverTime} the script reads Redis's {@code TIME} instead); a claim draws
 *       its nonce ({@link ClaimId#newNonce()});
 *   <li>run the operation's Lua script ({@code claim.lua}, {@code complete.lua}, {@code fail.lua},
 *       {@code extend.lua}; {@link ScriptRunner}) with the order's keys as KEYS and every value as
 *       ARGV: Redis runs it atomically, and it decides as {@link OrderStateMachine} does (each
 *       script's header says how), every check before its first write;
 *   <li>map its answer to {@link ClaimResult} or {@link WriteResult}; {@code unknown} is {@link
 *       UnknownOrderException}.
 * </ol>
 *
 * {@link #get} is one HGETALL, {@link #orphans} one XRANGE.
 *
 * <p>It is also an {@link OrderStoreAdmin}: the operator's listings read sorted sets that the
 * scripts above keep in the same run as the write that changes them, one per listing on a node and
 * one per listing per slot on a Cluster, where a listing runs once per master and merges their
 * pages ({@link RedisAdminQueries}). Ages are measured on the {@link Builder#clock}, also with
 * {@link Builder#serverTime}. The keys carry a layout version ({@link Layout}), checked before the
 * first call: an older layout is refused unless {@link Builder#upgradeLayout} is set, a newer one
 * always.
 *
 * <p>Failures: {@link StoreUnavailableException}. For a write its outcome is unknown after a lost
 * connection or a timeout, and retrying the same call is safe (every script is safe to run twice,
 * which a cluster client may do after a lost connection); it is {@code outcomeUnknown() == false}
 * when the write was never sent (connection refused, pool exhausted) or the server refused it
 * before running anything ({@code TRYAGAIN}, {@code CLUSTERDOWN}, {@code MOVED} left after the
 * redirects, ...: {@link Refusal}), on a client the store built (a client of yours may re-send on
 * its own, so its failures stay unknown). {@code TRYAGAIN}, a script whose keys a live slot
 * migration split, is run again up to {@value ScriptRunner#TRYAGAIN_ATTEMPTS} times. No message
 * contains the URL's password. Durability is the Redis deployment's: what to configure (AOF, {@code
 * noeviction}, WAIT) is in the README. {@link #close()} closes the client the store built, never
 * one passed to {@link Builder#client}.
 */
public final class RedisOrderStore implements OrderStore, OrderStoreAdmin {

  /** Attempts of one command by a Cluster client the store builds (Jedis's default). */
  private static final int CLUSTER_ATTEMPTS = 5;

  private static final long MAX_EXACT = (1L << 53) - 1;
  private static final LuaScript CLAIM = LuaScript.load("claim");
  private static final LuaScript COMPLETE = LuaScript.load("complete");
  private static final LuaScript FAIL = LuaScript.load("fail");
  private static final LuaScript EXTEND = LuaScript.load("extend");
  private static final Arg YES = Arg.of("1");
  private static final Arg NO = Arg.of("0");
  private static final Arg EMPTY = Arg.of("");

  private final ScriptRunner redis;
  private final OrderKeys keys;
  private final Clock clock;
  private final boolean serverTime;
  private final Layout layout;
  private final FencedAdmin admin;
  private final HeldClaims held = new HeldClaims();

  private RedisOrderStore(ScriptRunner redis, boolean cluster, Clock clock, Builder options) {
    this.redis = redis;
    this.keys = new OrderKeys(options.keyPrefix, cluster);
    this.clock = clock;
    this.serverTime = options.serverTime;
    this.layout = new Layout(redis, keys, options.upgradeLayout);
    this.admin =
        new FencedAdmin(new RedisAdminQueries(redis, keys, layout, options.lookBudget), clock);
  }

  /** A builder: give it exactly one of {@code url}, {@code clusterNodes} or {@code client}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@inheritDoc}
   *
   * <p>On Redis: one run of {@code claim.lua}, with the nonce drawn here.
   */
  @Override
  public ClaimResult claim(OrderSnapshot snapshot, Duration lease) {
    ClaimRequest request = new ClaimRequest(snapshot, lease);
    String sessionId = request.sessionId();
    layout.check("claim", sessionId);
    OrderKeys.Keys order = keys.of(sessionId);
    String nonce = ClaimId.newNonce();
    long now = now();
    List<?> reply =
        redis.script(
            CLAIM,
            "claim",
            sessionId,
            keys.cluster(),
            new Arg[] {
              order.hash(),
              order.index(OrderKeys.CLAIMS),
              order.index(OrderKeys.FAILED),
              order.mismatches(),
              order.index(OrderKeys.MISMATCHES)
            },
            new Arg[] {
              time(now),
              expiresAfter(now, request.lease()),
              Arg.of(nonce),
              HashCodec.snapshotArg(request.snapshot()),
              order.tag()
            });
    String outcome = HashCodec.outcome(reply.get(0));
    if ("mismatch".equals(outcome)) {
      return mismatch(
          request,
          HashCodec.text(reply.get(1)),
          HashCodec.record(order.hashKey(), sessionId, reply.get(2)));
    }
    if ("claimed".equals(outcome) && !(reply.get(1) instanceof List)) {
      // a new order: the script answered only its time; the record is what it wrote
      ClaimResult created =
          OrderStateMachine.claim(null, request, instant(CLAIM, reply.get(1)), nonce).result();
      held.put(created.record());
      return created;
    }
    OrderRecord record = HashCodec.record(order.hashKey(), sessionId, reply.get(1));
    return switch (outcome) {
      case "claimed" -> {
        if (record.claimId() == null || !record.claimId().nonce().equals(nonce)) {
          throw ScriptRunner.unexpected(
              CLAIM, "claimed, with claim " + record.claimId() + " instead of nonce " + nonce);
        }
        held.put(record);
        yield new ClaimResult.Claimed(record.claimId(), record);
      }
      case "provisioned" -> new ClaimResult.Provisioned(record);
      case "inflight" -> new ClaimResult.InFlight(record);
      default -> throw ScriptRunner.unexpected(CLAIM, outcome);
    };
  }

  /**
   * The Mismatch {@code claim.lua} answered, checked against the state machine: the script names
   * the fields that differ, and they must be the ones {@link OrderField#differing} finds (else the
   * script and the machine drifted apart, a bug).
   */
  private static ClaimResult mismatch(ClaimRequest request, String names, OrderRecord stored) {
    Set<OrderField> fields = OrderField.fromNames(names);
    Set<OrderField> expected = OrderField.differing(stored.snapshot(), request.snapshot());
    if (fields.isEmpty() || !fields.equals(expected)) {
      throw ScriptRunner.unexpected(
          CLAIM,
          "mismatch in '"
              + names
              + "' where the state machine finds "
              + OrderField.names(expected));
    }
    return new ClaimResult.Mismatch(stored, fields);
  }

  /**
   * {@inheritDoc}
   *
   * <p>On Redis: one run of {@code complete.lua}; a superseded complete's orphan is written by the
   * same script as the rejection. A complete by a claim this store granted is answered from the
   * record that claim answered ({@link HeldClaims}), so the script answers only its time.
   */
  @Override
  public WriteResult complete(String sessionId, ClaimId claimId, Item item) {
    WriteRequest.Complete request = new WriteRequest.Complete(sessionId, claimId, item);
    layout.check("complete", sessionId);
    OrderKeys.Keys order = keys.of(sessionId);
    String payload = request.item().payload();
    OrderRecord claimed = held.take(sessionId, claimId);
    return write(
        COMPLETE,
        request,
        claimed,
        order,
        new Arg[] {
          order.hash(),
          order.orphans(),
          order.orphanIds(),
          order.index(OrderKeys.CLAIMS),
          order.index(OrderKeys.ORPHANS)
        },
        new Arg[] {
          Arg.of(claimId.fence()),
          Arg.of(claimId.nonce()),
          time(now()),
          Arg.of(request.item().providerOrderId()),
          payload == null ? NO : YES,
          payload == null ? EMPTY : Arg.of(payload),
          order.tag(),
          claimed == null ? NO : YES
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>On Redis: one run of {@code fail.lua}, answered as a complete is ({@link HeldClaims}).
   */
  @Override
  public WriteResult fail(String sessionId, ClaimId claimId, String error) {
    WriteRequest.Fail request = new WriteRequest.Fail(sessionId, claimId, error);
    layout.check("fail", sessionId);
    OrderKeys.Keys order = keys.of(sessionId);
    OrderRecord claimed = held.take(sessionId, claimId);
    return write(
        FAIL,
        request,
        claimed,
        order,
        new Arg[] {order.hash(), order.index(OrderKeys.CLAIMS), order.index(OrderKeys.FAILED)},
        new Arg[] {
          Arg.of(claimId.fence()),
          Arg.of(claimId.nonce()),
          time(now()),
          Arg.of(request.error()),
          order.tag(),
          claimed == null ? NO : YES
        });
  }

  /**
   * {@inheritDoc}
   *
   * <p>On Redis: one run of {@code extend.lua}, answered as a complete is ({@link HeldClaims}).
   */
  @Override
  public WriteResult extend(String sessionId, ClaimId claimId, Duration lease) {
    WriteRequest.Extend request = new WriteRequest.Extend(sessionId, claimId, lease);
    layout.check("extend", sessionId);
    OrderKeys.Keys order = keys.of(sessionId);
    long now = now();
    // the claim's record stays as it is: an extend changes only what the next write overwrites
    OrderRecord claimed = held.get(sessionId, claimId);
    return write(
        EXTEND,
        request,
        claimed,
        order,
        new Arg[] {order.hash(), order.index(OrderKeys.CLAIMS)},
        new Arg[] {
          Arg.of(claimId.fence()),
          Arg.of(claimId.nonce()),
          time(now),
          expiresAfter(now, request.lease()),
          order.tag(),
          claimed == null ? NO : YES
        });
  }

  /**
   * Runs a write's script and maps its answer.
   *
   * @param claimed the order as the request's claim left it, if the script may answer only its time
   *     when it writes ({@code written, now}: the record is then {@code claimed} with the write
   *     applied, as {@link OrderStateMachine#write} decides), else {@code null}
   */
  private WriteResult write(
      LuaScript script,
      WriteRequest request,
      OrderRecord claimed,
      OrderKeys.Keys order,
      Arg[] keyList,
      Arg[] args) {
    String sessionId = request.sessionId();
    List<?> reply =
        redis.script(script, request.operation(), sessionId, keys.cluster(), keyList, args);
    String outcome = HashCodec.outcome(reply.get(0));
    if ("unknown".equals(outcome)) {
      throw new UnknownOrderException(ScriptRunner.BACKEND, request.operation(), sessionId);
    }
    if (claimed != null && "written".equals(outcome) && !(reply.get(1) instanceof List)) {
      return OrderStateMachine.write(claimed, request, instant(script, reply.get(1))).result();
    }
    OrderRecord record = HashCodec.record(order.hashKey(), sessionId, reply.get(1));
    return switch (outcome) {
      case "written" -> new WriteResult.Written(record);
      case "superseded" -> new WriteResult.Superseded(record);
      default -> throw ScriptRunner.unexpected(script, outcome);
    };
  }

  /** {@inheritDoc} On Redis: one HGETALL. */
  @Override
  public Optional<OrderRecord> get(String sessionId) {
    Validate.sessionId(sessionId);
    layout.check("get", sessionId);
    String key = keys.order(sessionId);
    Map<String, String> fields = redis.call("get", sessionId, false, c -> c.hgetAll(key));
    return fields == null || fields.isEmpty()
        ? Optional.empty()
        : Optional.of(HashCodec.record(key, sessionId, fields));
  }

  /** {@inheritDoc} On Redis: one XRANGE over the order's orphan stream. */
  @Override
  public List<Orphan> orphans(String sessionId) {
    Validate.sessionId(sessionId);
    layout.check("orphans", sessionId);
    String key = keys.orphans(sessionId);
    List<StreamEntry> entries =
        redis.call("orphans", sessionId, false, c -> c.xrange(key, "-", "+"));
    return List.copyOf(
        entries.stream().map(e -> HashCodec.orphan(key, sessionId, e.getFields())).toList());
  }

  /** {@inheritDoc} On Redis: {@code page.lua} once on a node, once per master on a Cluster. */
  @Override
  public Page<OrphanRecord> unreconciledOrphans(String cursor, int pageSize) {
    return admin.unreconciledOrphans(cursor, pageSize);
  }

  /** {@inheritDoc} On Redis: one run of {@code orphan.lua} on the order's slot. */
  @Override
  public Optional<OrphanRecord> orphan(OrphanId id) {
    return admin.orphan(id);
  }

  /**
   * {@inheritDoc}
   *
   * <p>On Redis: one run of {@code reconcile.lua} on the order's slot, which records the note
   * unless one is recorded and takes the orphan out of the unreconciled index.
   */
  @Override
  public ReconcileResult reconcile(OrphanId id, String note, Instant reconciledAt) {
    return admin.reconcile(id, note, reconciledAt);
  }

  /** {@inheritDoc} On Redis: the claims index, up to the age's bound. */
  @Override
  public Page<org.fencekit.store.Mismatch> mismatches(String cursor, int pageSize) {
    return admin.mismatches(cursor, pageSize);
  }

  @Override
  public Page<OrderRecord> stuckOrders(Duration expiredFor, String cursor, int pageSize) {
    return admin.stuckOrders(expiredFor, cursor, pageSize);
  }

  /**
   * {@inheritDoc}
   *
   * <p>On Redis: the failed index. By age alone it reads what it returns; with a count it walks the
   * FAILED orders from the cursor and reads each one's count until the page is full (at most
   * {@value RedisAdminQueries#LOOK_BUDGET} per script run, so a long walk never holds Redis long).
   */
  @Override
  public Page<OrderRecord> failedOrders(
      int minFailures, Duration failingFor, String cursor, int pageSize) {
    return admin.failedOrders(minFailures, failingFor, cursor, pageSize);
  }

  /**
   * Closes the client this store built; a client passed to {@link Builder#client} stays open.
   * Idempotent.
   */
  @Override
  public void close() {
    redis.close();
  }

  @Override
  public String toString() {
    return String.format(
        "RedisOrderStore[%s, keyPrefix=%s%s]",
        redis.target(), keys.prefix(), serverTime ? ", server time" : "");
  }

  /** The clock's epoch ms for a script's time argument ({@link #time}); 0 with server time. */
  private long now() {
    if (serverTime) {
      return 0;
    }
    long millis;
    try {
      millis = OrderStateMachine.nowMillis(clock);
    } catch (ArithmeticException e) {
      millis = Long.MAX_VALUE;
    }
    if (Math.abs(millis) > MAX_EXACT - OrderStore.MAX_LEASE.toMillis()) {
      throw new IllegalStateException(
          "redis store: the clock reads "
              + clock.instant()
              + ", too far from 1970 for the scripts to compare epoch milliseconds exactly (they"
              + " must stay within 2^53); check the Clock given to"
              + " RedisOrderStore.builder().clock(...)");
    }
    return millis;
  }

  /** The time argument of a script: {@link #now}, or '' for the script to read TIME. */
  private Arg time(long now) {
    return serverTime ? EMPTY : Arg.of(now);
  }

  /** A lease's end: {@code now} + lease, or '+lease' for the script to add to TIME. */
  private Arg expiresAfter(long now, Duration lease) {
    return serverTime
        ? Arg.of("+" + lease.toMillis())
        : Arg.of(OrderStateMachine.leaseEndMillis(now, lease));
  }

  /** A script's answer of an instant, epoch ms. */
  private static Instant instant(LuaScript script, Object epochMillis) {
    try {
      return Instant.ofEpochMilli(HashCodec.epochMillis(epochMillis));
    } catch (NumberFormatException e) {
      throw ScriptRunner.unexpected(script, "a time of " + HashCodec.show(epochMillis));
    }
  }

  /**
   * Builds a {@link RedisOrderStore}. Exactly one of {@link #url}, {@link #clusterNodes} or {@link
   * #client} must be given; {@link #build()} checks every property and names the bad one. The clock
   * is every store's shared setting ({@link StoreBuilder}).
   */
  public static final class Builder extends StoreBuilder<Builder> {

    private String url;
    private String clusterNodesText;
    private Set<HostAndPort> clusterNodes;
    private UnifiedJedis client;
    private String keyPrefix = "fencekit:";
    private Duration timeout = Duration.ofSeconds(2);
    private boolean serverTime;
    private boolean upgradeLayout;
    private int lookBudget = RedisAdminQueries.LOOK_BUDGET;

    private Builder() {}

    /**
     * A single Redis node, {@code redis://[user:password@]host[:port][/db]} or {@code rediss://}
     * for TLS. The store builds a pooled {@link RedisClient} and closes it on {@link #close()}.
     */
    public Builder url(String url) {
      this.url = url;
      return this;
    }

    /**
     * A Redis Cluster, given by some of its nodes (the rest are discovered). The store builds a
     * {@link RedisClusterClient} and closes it on {@link #close()}. For a cluster that needs a
     * password or TLS, build the client yourself and pass it to {@link #client}.
     */
    public Builder clusterNodes(Set<HostAndPort> nodes) {
      this.clusterNodes = nodes == null ? null : new LinkedHashSet<>(nodes);
      this.clusterNodesText = null;
      return this;
    }

    /**
     * A Redis Cluster given as {@code "host:port,host:port,..."}; see {@link #clusterNodes(Set)}.
     */
    public Builder clusterNodes(String nodes) {
      this.clusterNodesText = nodes;
      this.clusterNodes = null;
      return this;
    }

    /**
     * The user's own client ({@link RedisClient}, {@link RedisClusterClient} or any {@link
     * UnifiedJedis}); the store uses it and never closes it. Its retries are its own, so a write
     * that fails on it always says its outcome is unknown.
     */
    public Builder client(UnifiedJedis client) {
      this.client = client;
      return this;
    }

    /**
     * The prefix of every key the store writes; 1 to 64 of {@code [A-Za-z0-9_:.-]}. Default {@code
     * "fencekit:"}.
     */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
      return this;
    }

    /**
     * Whether lease arithmetic takes {@code now} from the Redis server ({@code TIME}, read inside
     * each script, so no extra round trip) instead of {@link #clock}: then a host whose clock is
     * wrong can neither take over a live order nor keep a dead one, and all hosts judge leases on
     * one clock per order (the clock of the master holding its slot; keep the masters' clocks in
     * sync, as a failover moves an order to another host's clock). The scripts still decide as the
     * state machine does; only where {@code now} comes from changes. Default false (the clock).
     */
    public Builder serverTime(boolean serverTime) {
      this.serverTime = serverTime;
      return this;
    }

    /**
     * Whether the store may upgrade keys of an older layout (1 or 2) to the layout it needs (3),
     * before its first call: it rewrites and indexes every order under the prefix once (a SCAN and
     * one script run per order, safe to run again and from several processes), then writes the
     * version. Without it, such a store refuses to start and says how to upgrade. A new prefix (no
     * orders) needs no upgrade. Stop every older fencekit first: one still running would answer its
     * own complete of an upgraded order as superseded. Default false.
     */
    public Builder upgradeLayout(boolean upgradeLayout) {
      this.upgradeLayout = upgradeLayout;
      return this;
    }

    /** Members a listing's script looks at per run (tests make it small); at least 1. */
    Builder lookBudget(int lookBudget) {
      if (lookBudget < 1) {
        throw new IllegalArgumentException("lookBudget must be at least 1, got " + lookBudget);
      }
      this.lookBudget = lookBudget;
      return this;
    }

    /**
     * How long to wait to connect and for each answer, for a client the store builds; at least 1
     * ms, at most 10 minutes. Default 2 seconds.
     */
    public Builder timeout(Duration timeout) {
      this.timeout = timeout;
      return this;
    }

    /**
     * Checks every property and builds the store, then checks the key layout if Redis answers (else
     * before the first call). A cluster client connects here to learn the slots.
     *
     * @throws IllegalArgumentException or {@link NullPointerException} naming a bad property
     * @throws StoreUnavailableException if the cluster cannot be reached
     * @throws IllegalStateException if the keys are in another layout ({@link #upgradeLayout})
     */
    public RedisOrderStore build() {
      Validate.keyPrefix("keyPrefix", keyPrefix);
      Clock clock = checkedClock();
      Validate.notNull("timeout", timeout);
      if (timeout.compareTo(Duration.ofMillis(1)) < 0
          || timeout.compareTo(Duration.ofMinutes(10)) > 0) {
        throw new IllegalArgumentException(
            "timeout must be from 1 ms to 10 minutes, got " + timeout);
      }
      int sources =
          (url != null ? 1 : 0)
              + (clusterNodes != null || clusterNodesText != null ? 1 : 0)
              + (client != null ? 1 : 0);
      if (sources != 1) {
        throw new IllegalArgumentException(
            "give exactly one of url, clusterNodes or client, got "
                + sources
                + "; for example RedisOrderStore.builder().url(\"redis://127.0.0.1:6379\")");
      }
      if (client != null) {
        String target = client.getClass().getSimpleName();
        // a user's client talks to a Cluster (its keys then have index keys per slot) if it is a
        // RedisClusterClient or a JedisCluster, the Cluster client before Jedis 7, still in use
        @SuppressWarnings("deprecation")
        boolean cluster =
            client instanceof RedisClusterClient
                || client instanceof redis.clients.jedis.JedisCluster;
        return open(
            new ScriptRunner(client, false, false, false, Credentials.NONE, target),
            cluster,
            clock);
      }
      ConnectionPoolConfig pool = new ConnectionPoolConfig();
      pool.setMaxTotal(32);
      pool.setMaxIdle(32);
      pool.setMaxWait(timeout);
      int timeoutMillis = (int) timeout.toMillis();
      if (url != null) {
        URI uri = RedisAddress.parseUrl(url);
        Credentials credentials = Credentials.of(url);
        DefaultJedisClientConfig config =
            DefaultJedisClientConfig.builder()
                .user(JedisURIHelper.getUser(uri))
                .password(JedisURIHelper.getPassword(uri))
                .database(JedisURIHelper.getDBIndex(uri))
                .ssl(JedisURIHelper.isRedisSSLScheme(uri))
                .timeoutMillis(timeoutMillis)
                .build();
        RedisClient built =
            RedisClient.builder()
                .hostAndPort(JedisURIHelper.getHostAndPort(uri))
                .clientConfig(config)
                .poolConfig(pool)
                .build();
        return open(
            new ScriptRunner(built, true, true, false, credentials, credentials.mask(url)),
            false,
            clock);
      }
      Set<HostAndPort> nodes =
          clusterNodes != null
              ? RedisAddress.checkNodes(clusterNodes)
              : RedisAddress.parseNodes(clusterNodesText);
      String target =
          "cluster " + nodes.stream().map(HostAndPort::toString).collect(Collectors.joining(","));
      RedisClusterClient built;
      try {
        DefaultJedisClientConfig config =
            DefaultJedisClientConfig.builder().timeoutMillis(timeoutMillis).build();
        ClusterConnectionProvider provider = new ClusterConnectionProvider(nodes, config, pool);
        built =
            RedisClusterClient.builder()
                .nodes(nodes)
                .clientConfig(config)
                .poolConfig(pool)
                .connectionProvider(provider)
                .commandExecutor(
                    new SendTracker(
                        provider,
                        CLUSTER_ATTEMPTS,
                        Duration.ofMillis((long) timeoutMillis * CLUSTER_ATTEMPTS)))
                .build();
      } catch (JedisException e) {
        throw new StoreUnavailableException(
            ScriptRunner.BACKEND,
            "connect",
            null,
            false,
            String.format(
                "%s (Redis at %s); check that the cluster is up, that these nodes belong to it and"
                    + " that cluster_state is ok on them",
                ScriptRunner.describe(e), target),
            e);
      }
      return open(new ScriptRunner(built, true, true, true, Credentials.NONE, target), true, clock);
    }

    /**
     * The store, its key layout checked now if Redis answers (a store that cannot reach Redis yet
     * checks before its first call instead); closes the client it built if the layout is refused.
     */
    private RedisOrderStore open(ScriptRunner redis, boolean cluster, Clock clock) {
      RedisOrderStore store = new RedisOrderStore(redis, cluster, clock, this);
      try {
        store.layout.check("start", null);
      } catch (StoreUnavailableException e) {
        // checked again before the first call
      } catch (RuntimeException e) {
        store.close();
        throw e;
      }
      return store;
    }
  }
}
