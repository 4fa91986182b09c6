package dev.entangle.rules.linear;

import java.util.Arrays;

/**
 * An element-wise product of atoms, as the sorted multiset of their ids (the empty monomial is the
 * constant one of the class's shape). Ordered by degree, then lexicographically.
 */
public final class Monomial implements Comparable<Monomial> {
  public static final Monomial ONE = new Monomial(new int[0]);

  private final int[] atoms;
  private final int hash;

  private Monomial(int[] sortedAtoms) {
    this.atoms = sortedAtoms;
    this.hash = Arrays.hashCode(sortedAtoms);
  }

  /** The product of the given atoms, in any order. */
  public static Monomial of(int... atoms) {
    int[] a = atoms.clone();
    Arrays.sort(a);
    return new Monomial(a);
  }

  /** The product of this and another monomial. */
  public Monomial times(Monomial o) {
    int[] a = new int[atoms.length + o.atoms.length];
    int i = 0;
    int j = 0;
    int k = 0;
    while (i < atoms.length || j < o.atoms.length) {
      a[k++] =
          j == o.atoms.length || (i < atoms.length && atoms[i] <= o.atoms[j])
              ? atoms[i++]
              : o.atoms[j++];
    }
    return new Monomial(a);
  }

  public int degree() {
    return atoms.length;
  }

  public int atom(int i) {
    return atoms[i];
  }

  public boolean isOne() {
    return atoms.length == 0;
  }

  @Override
  public int compareTo(Monomial o) {
    if (atoms.length != o.atoms.length) {
      return Integer.compare(atoms.length, o.atoms.length);
    }
    return Arrays.compare(atoms, o.atoms);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Monomial m && hash == m.hash && Arrays.equals(atoms, m.atoms);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    if (atoms.length == 0) {
      return "1";
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < atoms.length; i++) {
      sb.append(i == 0 ? "" : "*").append('a').append(atoms[i]);
    }
    return sb.toString();
  }
}
