package dev.entangle.egraph;

import java.util.Arrays;

/**
 * Disjoint sets over dense int ids {@code 0..size-1}, with path halving in {@link #find}. The
 * caller decides which root survives a union.
 */
final class UnionFind {
  private int[] parent = new int[16];
  private int size;

  /** Creates a new singleton set and returns its id (the next dense id). */
  int makeSet() {
    if (size == parent.length) {
      parent = Arrays.copyOf(parent, size * 2);
    }
    parent[size] = size;
    return size++;
  }

  /** The root of {@code id}'s set; compresses the path on the way (no allocation). */
  int find(int id) {
    int[] p = parent;
    while (p[id] != id) {
      int grand = p[p[id]];
      p[id] = grand;
      id = grand;
    }
    return id;
  }

  /** Makes {@code keep} the root of the union of two roots and returns it. */
  int union(int keep, int absorbed) {
    parent[absorbed] = keep;
    return keep;
  }

  int size() {
    return size;
  }

  /** Every id's parent, as {@link #restore} takes them. */
  int[] parents() {
    return Arrays.copyOf(parent, size);
  }

  /** Makes the sets those {@code parents} describe (one entry per id). */
  void restore(int[] parents) {
    parent = Arrays.copyOf(parents, Math.max(16, parents.length));
    size = parents.length;
  }
}
