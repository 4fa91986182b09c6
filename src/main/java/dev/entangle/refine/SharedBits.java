package dev.entangle.refine;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A fixed-size bit set that one thread sets while others read (checks run ahead of their turn, see
 * {@link Speculation}).
 */
final class SharedBits {
  private final AtomicLongArray words;

  SharedBits(int size) {
    words = new AtomicLongArray((size + 63) >>> 6);
  }

  boolean get(int i) {
    return (words.get(i >>> 6) & (1L << i)) != 0;
  }

  void set(int i) {
    long bit = 1L << i;
    int w = i >>> 6;
    long old;
    do {
      old = words.get(w);
    } while ((old & bit) == 0 && !words.compareAndSet(w, old, old | bit));
  }
}
