package dev.entangle.egraph;

import java.util.Arrays;

/** A growable list of ints without boxing, for the engine's hot paths. */
final class IntList {
  private int[] items;
  private int size;

  IntList() {
    this(4);
  }

  IntList(int capacity) {
    items = new int[Math.max(capacity, 1)];
  }

  void add(int value) {
    if (size == items.length) {
      items = Arrays.copyOf(items, items.length * 2);
    }
    items[size++] = value;
  }

  void addAll(IntList other) {
    if (size + other.size > items.length) {
      items = Arrays.copyOf(items, Math.max(items.length * 2, size + other.size));
    }
    System.arraycopy(other.items, 0, items, size, other.size);
    size += other.size;
  }

  int get(int index) {
    if (index >= size) {
      throw new IndexOutOfBoundsException(index);
    }
    return items[index];
  }

  /** The last element; the list must not be empty. */
  int last() {
    return items[size - 1];
  }

  /** Drops the last element; the list must not be empty. */
  void removeLast() {
    size--;
  }

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  void clear() {
    size = 0;
  }

  int[] toArray() {
    return Arrays.copyOf(items, size);
  }

  /** A list holding {@code values} (copied). */
  static IntList of(int[] values) {
    IntList l = new IntList(values.length);
    System.arraycopy(values, 0, l.items, 0, values.length);
    l.size = values.length;
    return l;
  }
}
