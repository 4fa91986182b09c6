package dev.entangle.core;

import java.util.Arrays;

/**
 * A term node by value: operator, attributes and the handles of its operands, equal to another when
 * all three are. The key of a builder that gives equal nodes one handle.
 */
public record NodeKey(int op, long[] attrs, int[] kids) {
  @Override
  public boolean equals(Object o) {
    return o instanceof NodeKey k
        && k.op == op
        && Arrays.equals(k.attrs, attrs)
        && Arrays.equals(k.kids, kids);
  }

  @Override
  public int hashCode() {
    return (op * 31 + Arrays.hashCode(attrs)) * 31 + Arrays.hashCode(kids);
  }
}
