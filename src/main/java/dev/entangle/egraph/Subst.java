package dev.entangle.egraph;

import java.util.Arrays;

/**
 * An immutable binding of class variables to class ids and attribute variables to longs. The two
 * kinds live in separate namespaces. Small by design (a pattern binds a handful of variables):
 * lookups scan arrays, and substitutions produced by one {@link Matcher} share their name arrays.
 */
public final class Subst {
  /** The empty substitution. */
  public static final Subst EMPTY =
      new Subst(new String[0], new int[0], new String[0], new long[0]);

  private final String[] clsNames;
  private final int[] cls;
  private final String[] attrNames;
  private final long[] attrs;

  /** Takes ownership of the arrays; names must be distinct within each kind. */
  Subst(String[] clsNames, int[] cls, String[] attrNames, long[] attrs) {
    this.clsNames = clsNames;
    this.cls = cls;
    this.attrNames = attrNames;
    this.attrs = attrs;
  }

  /** Whether class variable {@code name} is bound. */
  public boolean hasCls(String name) {
    return indexOf(clsNames, name) >= 0;
  }

  /** Whether attribute variable {@code name} is bound. */
  public boolean hasAttr(String name) {
    return indexOf(attrNames, name) >= 0;
  }

  /**
   * The class bound to {@code name}.
   *
   * @throws IllegalArgumentException when unbound
   */
  public int cls(String name) {
    int i = indexOf(clsNames, name);
    if (i < 0) {
      throw new IllegalArgumentException("class variable ?" + name + " is not bound");
    }
    return cls[i];
  }

  /**
   * The value bound to attribute variable {@code name}.
   *
   * @throws IllegalArgumentException when unbound
   */
  public long attr(String name) {
    int i = indexOf(attrNames, name);
    if (i < 0) {
      throw new IllegalArgumentException("attribute variable " + name + " is not bound");
    }
    return attrs[i];
  }

  /** This substitution with class variable {@code name} bound (or rebound) to {@code classId}. */
  public Subst withCls(String name, int classId) {
    int i = indexOf(clsNames, name);
    if (i >= 0) {
      int[] c = cls.clone();
      c[i] = classId;
      return new Subst(clsNames, c, attrNames, attrs);
    }
    String[] n = Arrays.copyOf(clsNames, clsNames.length + 1);
    n[clsNames.length] = name;
    int[] c = Arrays.copyOf(cls, cls.length + 1);
    c[cls.length] = classId;
    return new Subst(n, c, attrNames, attrs);
  }

  /** This substitution with attribute variable {@code name} bound (or rebound) to {@code value}. */
  public Subst withAttr(String name, long value) {
    int i = indexOf(attrNames, name);
    if (i >= 0) {
      long[] a = attrs.clone();
      a[i] = value;
      return new Subst(clsNames, cls, attrNames, a);
    }
    String[] n = Arrays.copyOf(attrNames, attrNames.length + 1);
    n[attrNames.length] = name;
    long[] a = Arrays.copyOf(attrs, attrs.length + 1);
    a[attrs.length] = value;
    return new Subst(clsNames, cls, n, a);
  }

  /** The number of bound variables of both kinds. */
  public int size() {
    return cls.length + attrs.length;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof Subst s) || s.cls.length != cls.length || s.attrs.length != attrs.length) {
      return false;
    }
    if (s.clsNames == clsNames && s.attrNames == attrNames) {
      return Arrays.equals(cls, s.cls) && Arrays.equals(attrs, s.attrs);
    }
    for (int i = 0; i < cls.length; i++) {
      int j = indexOf(s.clsNames, clsNames[i]);
      if (j < 0 || s.cls[j] != cls[i]) {
        return false;
      }
    }
    for (int i = 0; i < attrs.length; i++) {
      int j = indexOf(s.attrNames, attrNames[i]);
      if (j < 0 || s.attrs[j] != attrs[i]) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int h = 0; // order-independent, to agree with equals across name orders
    for (int i = 0; i < cls.length; i++) {
      h += clsNames[i].hashCode() ^ (cls[i] * 0x9E3779B1);
    }
    for (int i = 0; i < attrs.length; i++) {
      h += ~attrNames[i].hashCode() ^ Long.hashCode(attrs[i] * 0x9E3779B97F4A7C15L);
    }
    return h;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < cls.length; i++) {
      sb.append(sb.length() > 1 ? ", " : "")
          .append('?')
          .append(clsNames[i])
          .append('=')
          .append(cls[i]);
    }
    for (int i = 0; i < attrs.length; i++) {
      sb.append(sb.length() > 1 ? ", " : "").append(attrNames[i]).append('=').append(attrs[i]);
    }
    return sb.append('}').toString();
  }

  private static int indexOf(String[] names, String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }
}
