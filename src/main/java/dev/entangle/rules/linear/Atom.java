package dev.entangle.rules.linear;

import java.util.Arrays;

/**
 * An indivisible factor of a monomial: an e-class whose value the linear fragment does not see into
 * ({@link #CLASS}), or a structural atom {@code op[attrs](operands...)}, an operator applied to
 * interned forms ({@link FormTable}) that is linear in each of them and was distributed over their
 * sums (a matrix product of two monomials, a reduction or a layout operator of one).
 *
 * @param op a core operator id, or {@link #CLASS}
 * @param attrs the operator's attributes, or {the class id} for a class atom
 * @param operands interned form ids of the operands
 */
public record Atom(int op, long[] attrs, int[] operands) {
  /** The op of an e-class atom. */
  public static final int CLASS = -1;

  public static Atom ofClass(int cls) {
    return new Atom(CLASS, new long[] {cls}, new int[0]);
  }

  public boolean isClass() {
    return op == CLASS;
  }

  /** The class of a class atom. */
  public int cls() {
    return (int) attrs[0];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Atom a
        && op == a.op
        && Arrays.equals(attrs, a.attrs)
        && Arrays.equals(operands, a.operands);
  }

  @Override
  public int hashCode() {
    return (op * 31 + Arrays.hashCode(attrs)) * 31 + Arrays.hashCode(operands);
  }

  @Override
  public String toString() {
    return isClass() ? "c" + cls() : "op" + op + Arrays.toString(attrs) + Arrays.toString(operands);
  }
}
