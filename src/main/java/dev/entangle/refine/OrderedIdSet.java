package dev.entangle.refine;

import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * A set of G_d value ids that iterates in insertion order (as a {@link java.util.LinkedHashSet})
 * and answers membership from a {@link SparseIds}: an operator's check asks it for every dependency
 * of every value it considers bringing in.
 */
final class OrderedIdSet extends AbstractSet<Integer> {
  private final SparseIds members = new SparseIds();
  private final List<Integer> order = new ArrayList<>();

  /** Whether {@code id} is a member. */
  boolean has(int id) {
    return members.has(id);
  }

  /** The members in insertion order (a read-only view). */
  List<Integer> inOrder() {
    return Collections.unmodifiableList(order);
  }

  @Override
  public boolean add(Integer id) {
    if (!members.add(id)) {
      return false;
    }
    order.add(id);
    return true;
  }

  @Override
  public boolean contains(Object o) {
    return o instanceof Integer id && id >= 0 && members.has(id);
  }

  @Override
  public Iterator<Integer> iterator() {
    // read-only: removal would leave the bit set stale
    return inOrder().iterator();
  }

  @Override
  public int size() {
    return order.size();
  }
}
