package dev.entangle.refine;

import java.util.Arrays;

/**
 * A set of G_d value ids, few of them among many, each with a small value of its own (a distance):
 * an open-addressing hash table whose size follows the members, not the largest id. An operator's
 * check keeps several such sets (T_rel, what it brought in and how far away, what it looked at); as
 * bit sets each would take a bit per G_d value up to the largest member, which at a layer deep in a
 * large model is tens of kilobytes per set, per operator.
 */
final class SparseIds {
  private static final int EMPTY = -1;

  private int[] slots = new int[16];
  private int[] values = new int[16];
  private int size;

  SparseIds() {
    Arrays.fill(slots, EMPTY);
  }

  /** Whether {@code id} is a member. */
  boolean has(int id) {
    return slots[slot(id)] == id;
  }

  /** Adds {@code id} (not negative) with the value 0; false when it was a member already. */
  boolean add(int id) {
    return insert(id, 0) < 0;
  }

  /** {@code id}'s value, or -1 when it is not a member. */
  int value(int id) {
    int i = slot(id);
    return slots[i] == id ? values[i] : -1;
  }

  /**
   * Makes {@code id} (not negative) a member with {@code value} (not negative); returns its value
   * before, or -1 when it was not a member.
   */
  int put(int id, int value) {
    int before = insert(id, value);
    if (before >= 0) {
      values[slot(id)] = value;
    }
    return before;
  }

  /** Adds {@code id} with {@code value} unless a member; returns its value before, or -1. */
  private int insert(int id, int value) {
    if (id < 0 || value < 0) {
      throw new IllegalArgumentException("a value id and its value are not negative: " + id);
    }
    if (2 * (size + 1) > slots.length) {
      grow();
    }
    int i = slot(id);
    if (slots[i] == id) {
      return values[i];
    }
    slots[i] = id;
    values[i] = value;
    size++;
    return -1;
  }

  /** Where {@code id} is, or the empty slot where it would go. */
  private int slot(int id) {
    int mask = slots.length - 1;
    int i = mix(id) & mask;
    while (slots[i] != id && slots[i] != EMPTY) {
      i = (i + 1) & mask;
    }
    return i;
  }

  int size() {
    return size;
  }

  /** The members, ascending. */
  int[] ascending() {
    int[] out = new int[size];
    int k = 0;
    for (int s : slots) {
      if (s != EMPTY) {
        out[k++] = s;
      }
    }
    Arrays.sort(out);
    return out;
  }

  private void grow() {
    int[] old = slots;
    int[] oldValues = values;
    slots = new int[old.length * 2];
    values = new int[old.length * 2];
    Arrays.fill(slots, EMPTY);
    size = 0;
    for (int i = 0; i < old.length; i++) {
      if (old[i] != EMPTY) {
        insert(old[i], oldValues[i]);
      }
    }
  }

  private static int mix(int id) {
    int h = id * 0x9E3779B9;
    return h ^ (h >>> 16);
  }
}
