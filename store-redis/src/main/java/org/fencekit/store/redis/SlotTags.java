package org.fencekit.store.redis;

import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * A hash tag for every Redis Cluster slot: the smallest decimal number whose CRC16 falls in the
 * slot, so that {@code <prefix>{<tag>}:index:...} is a key of exactly that slot. A Cluster store
 * keeps one index key per listing per slot, beside the orders of that slot, so the script that
 * writes an order also keeps its index entries in the same run; a listing reads every slot's key on
 * each master in one script run per master.
 */
final class SlotTags {

  /** Slots of a Redis Cluster. */
  static final int SLOTS = 16384;

  private SlotTags() {}

  /** The tag of {@code slot}, 0 to 16383. */
  static String of(int slot) {
    return Table.TAGS[slot];
  }

  /** Built on first use: about 170,000 CRC16s of short strings, a few milliseconds. */
  private static final class Table {
    static final String[] TAGS = build();

    private static String[] build() {
      String[] tags = new String[SLOTS];
      int missing = SLOTS;
      for (int n = 0; missing > 0; n++) {
        String tag = Integer.toString(n);
        int slot = JedisClusterCRC16.getSlot(tag);
        if (tags[slot] == null) {
          tags[slot] = tag;
          missing--;
        }
      }
      return tags;
    }
  }
}
