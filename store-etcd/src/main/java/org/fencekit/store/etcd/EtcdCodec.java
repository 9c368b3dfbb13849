package org.fencekit.store.etcd;

import io.etcd.jetcd.ByteSequence;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.fencekit.store.ClaimId;
import org.fencekit.store.Item;
import org.fencekit.store.Mismatch;
import org.fencekit.store.MismatchId;
import org.fencekit.store.OrderRecord;
import org.fencekit.store.OrderSnapshot;
import org.fencekit.store.OrderStatus;
import org.fencekit.store.Orphan;
import org.fencekit.store.OrphanRecord;

/**
 * The values the store writes, in a versioned binary form: a format byte, then each field in a
 * fixed order, a string as its UTF-8 length and bytes ({@code -1} for {@code null}), an instant as
 * a presence byte and its epoch milliseconds. An order's value starts with its write id: the random
 * id of the transaction that wrote it, by which a write whose answer was lost is found.
 */
final class EtcdCodec {

  private static final byte ORDER = 1;
  private static final byte RECORD = 2;
  private static final byte ORPHAN = 3;
  private static final byte MISMATCH = 4;

  private EtcdCodec() {}

  /** An order as stored: its record and the id of the write that stored it. */
  record StoredOrder(String writeId, OrderRecord record) {}

  static ByteSequence order(String writeId, OrderRecord record) {
    return write(
        out -> {
          out.writeByte(ORDER);
          string(out, writeId);
          record(out, record);
        });
  }

  /** An order index's value: the record as the order's key holds it. */
  static ByteSequence record(OrderRecord record) {
    return write(
        out -> {
          out.writeByte(RECORD);
          record(out, record);
        });
  }

  static ByteSequence orphan(OrphanRecord orphan) {
    return write(
        out -> {
          out.writeByte(ORPHAN);
          Orphan o = orphan.orphan();
          string(out, o.sessionId());
          claimId(out, o.claimId());
          string(out, o.item().providerOrderId());
          string(out, o.item().payload());
          instant(out, o.recordedAt());
          string(out, orphan.note());
          instant(out, orphan.reconciledAt());
        });
  }

  static ByteSequence mismatch(Mismatch mismatch) {
    return write(
        out -> {
          out.writeByte(MISMATCH);
          string(out, mismatch.id().nonce());
          instant(out, mismatch.recordedAt());
          snapshot(out, mismatch.stored());
          snapshot(out, mismatch.offered());
        });
  }

  static Mismatch readMismatch(String key, ByteSequence value) {
    return read(
        key,
        value,
        MISMATCH,
        in -> {
          String nonce = string(in);
          Instant recordedAt = instant(in);
          OrderSnapshot stored = snapshot(in);
          return new Mismatch(
              new MismatchId(stored.sessionId(), nonce), recordedAt, stored, snapshot(in));
        });
  }

  static StoredOrder readOrder(String key, ByteSequence value) {
    return read(
        key,
        value,
        ORDER,
        in -> {
          String writeId = string(in);
          return new StoredOrder(writeId, record(in));
        });
  }

  static OrderRecord readRecord(String key, ByteSequence value) {
    return read(key, value, RECORD, EtcdCodec::record);
  }

  static OrphanRecord readOrphan(String key, ByteSequence value) {
    return read(
        key,
        value,
        ORPHAN,
        in -> {
          Orphan orphan =
              new Orphan(string(in), claimId(in), new Item(string(in), string(in)), instant(in));
          return new OrphanRecord(orphan, string(in), instant(in));
        });
  }

  private static void snapshot(DataOutputStream out, OrderSnapshot s) throws IOException {
    string(out, s.sessionId());
    string(out, s.productId());
    out.writeInt(s.quantity());
    string(out, s.customerEmail());
    out.writeLong(s.amountTotal());
    string(out, s.currency());
  }

  private static OrderSnapshot snapshot(DataInputStream in) throws IOException {
    return new OrderSnapshot(
        string(in), string(in), in.readInt(), string(in), in.readLong(), string(in));
  }

  private static void record(DataOutputStream out, OrderRecord r) throws IOException {
    snapshot(out, r.snapshot());
    string(out, r.status().name());
    out.writeBoolean(r.item() != null);
    if (r.item() != null) {
      string(out, r.item().providerOrderId());
      string(out, r.item().payload());
    }
    string(out, r.lastError());
    claimId(out, r.claimId());
    instant(out, r.claimedAt());
    instant(out, r.leaseExpiresAt());
    out.writeLong(r.fence());
    claimId(out, r.settledBy());
    instant(out, r.updatedAt());
    out.writeInt(r.failures());
    instant(out, r.failedSince());
  }

  private static OrderRecord record(DataInputStream in) throws IOException {
    OrderSnapshot snapshot = snapshot(in);
    OrderStatus status = OrderStatus.valueOf(string(in));
    Item item = in.readBoolean() ? new Item(string(in), string(in)) : null;
    return new OrderRecord(
        snapshot,
        status,
        item,
        string(in),
        claimId(in),
        instant(in),
        instant(in),
        in.readLong(),
        claimId(in),
        instant(in),
        in.readInt(),
        instant(in));
  }

  private static void claimId(DataOutputStream out, ClaimId id) throws IOException {
    string(out, id == null ? null : id.toString());
  }

  private static ClaimId claimId(DataInputStream in) throws IOException {
    String text = string(in);
    return text == null ? null : ClaimId.parse(text);
  }

  private static void string(DataOutputStream out, String value) throws IOException {
    if (value == null) {
      out.writeInt(-1);
      return;
    }
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private static String string(DataInputStream in) throws IOException {
    int length = in.readInt();
    return length < 0 ? null : new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }

  private static void instant(DataOutputStream out, Instant at) throws IOException {
    out.writeBoolean(at != null);
    if (at != null) {
      out.writeLong(at.toEpochMilli());
    }
  }

  private static Instant instant(DataInputStream in) throws IOException {
    return in.readBoolean() ? Instant.ofEpochMilli(in.readLong()) : null;
  }

  private interface Writer {
    void write(DataOutputStream out) throws IOException;
  }

  private interface Reader<T> {
    T read(DataInputStream in) throws IOException;
  }

  private static ByteSequence write(Writer writer) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      writer.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a ByteArrayOutputStream does not throw
    }
    return ByteSequence.from(bytes.toByteArray());
  }

  private static <T> T read(String key, ByteSequence value, byte format, Reader<T> reader) {
    byte[] bytes = value.getBytes();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      byte found = bytes.length == 0 ? 0 : in.readByte();
      if (found != format) {
        throw new IllegalArgumentException(
            "it starts with format " + found + " where " + format + " was expected");
      }
      T result = reader.read(in);
      if (in.available() != 0) {
        throw new IllegalArgumentException(in.available() + " bytes follow its last field");
      }
      return result;
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException(
          String.format(
              "etcd store: the value of key '%s' is not one this store wrote (%s); give each store"
                  + " a key prefix of its own (EtcdOrderStore.builder().keyPrefix(...)) and never"
                  + " write under it by hand",
              key, e.getMessage()),
          e);
    }
  }
}
