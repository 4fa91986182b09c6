package dev.entangle.rules.linear;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A canonical polynomial {@code Σ c_i · m_i}: distinct monomials in increasing order, each with a
 * non-zero exact rational coefficient. Two values that normalize to equal forms over the same atoms
 * are equal (as real numbers: floating point is read as real arithmetic, but for infinities and
 * NaN: nothing cancels, {@code x - x} and {@code x · 0} are not 0, so an operation whose result
 * would lose a monomial that way gives no form; {@code ClassForms} names such a value by its terms
 * before cancelling). Operations return null also when the result would exceed {@link #MAX_TERMS}
 * monomials or {@link #MAX_DEGREE} atoms in one monomial, or a coefficient would overflow: the
 * value then stays an atom.
 *
 * @param monomials the monomials, strictly increasing
 * @param coefficients their coefficients, none zero
 */
public record LinearForm(List<Monomial> monomials, List<Rational> coefficients) {
  /** The most monomials a form holds. */
  public static final int MAX_TERMS = 64;

  /** The most atoms in one monomial. */
  public static final int MAX_DEGREE = 8;

  public static final LinearForm ZERO = new LinearForm(List.of(), List.of());

  public LinearForm {
    monomials = List.copyOf(monomials);
    coefficients = List.copyOf(coefficients);
  }

  /** The form {@code c · 1}: a constant. */
  public static LinearForm constant(Rational c) {
    return c.isZero() ? ZERO : new LinearForm(List.of(Monomial.ONE), List.of(c));
  }

  /** The form {@code 1 · atom}. */
  public static LinearForm atom(int atom) {
    return new LinearForm(List.of(Monomial.of(atom)), List.of(Rational.ONE));
  }

  /** The form {@code 1 · m}. */
  public static LinearForm monomial(Monomial m) {
    return new LinearForm(List.of(m), List.of(Rational.ONE));
  }

  public int size() {
    return monomials.size();
  }

  // equals and hashCode are written out: a record's own are made at their first call by an
  // invokedynamic bootstrap, milliseconds of a check's first search
  @Override
  public boolean equals(Object o) {
    return o instanceof LinearForm f
        && monomials.equals(f.monomials)
        && coefficients.equals(f.coefficients);
  }

  @Override
  public int hashCode() {
    return monomials.hashCode() * 31 + coefficients.hashCode();
  }

  public Monomial monomial(int i) {
    return monomials.get(i);
  }

  public Rational coefficient(int i) {
    return coefficients.get(i);
  }

  /** Whether the form is a constant (no monomial but the empty one). */
  public boolean isConstant() {
    return monomials.isEmpty() || (monomials.size() == 1 && monomials.get(0).isOne());
  }

  /** The constant's value, for a constant form. */
  public Rational constantValue() {
    return monomials.isEmpty() ? Rational.ZERO : coefficients.get(0);
  }

  /** Whether some monomial is the empty one (a constant term). */
  public boolean hasConstantTerm() {
    return !monomials.isEmpty() && monomials.get(0).isOne();
  }

  public LinearForm plus(LinearForm o) {
    TreeMap<Monomial, Rational> sum = sumTerms(o, false);
    return sum == null ? null : of(sum);
  }

  /** This form times a constant; null for zero unless the form is a constant (x · 0 is not 0). */
  public LinearForm times(Rational c) {
    if (c.isZero()) {
      return isConstant() ? ZERO : null;
    }
    List<Rational> cs = new ArrayList<>(size());
    try {
      for (Rational r : coefficients) {
        cs.add(r.times(c));
      }
    } catch (ArithmeticException e) {
      return null;
    }
    return new LinearForm(monomials, cs);
  }

  public LinearForm negate() {
    return times(Rational.of(-1));
  }

  /** The element-wise product of two forms, expanded; null for a zero factor of a non-constant. */
  public LinearForm times(LinearForm o) {
    if ((size() == 0 && !o.isConstant()) || (o.size() == 0 && !isConstant())) {
      return null;
    }
    TreeMap<Monomial, Rational> product = productTerms(o, false);
    return product == null ? null : of(product);
  }

  /**
   * The terms of {@code this + o} with the monomials that cancel kept, at coefficient zero; null
   * when a coefficient would overflow or the terms are too many. Not a form (forms hold no zero
   * coefficient): the key of a sum whose terms cancel ({@code ClassForms}).
   */
  LinearForm plusKeepingCancelled(LinearForm o) {
    TreeMap<Monomial, Rational> sum = sumTerms(o, true);
    return sum == null ? null : keepingZeros(sum);
  }

  /**
   * The sum's terms; null when a coefficient overflows or (unless {@code keepCancelled}) a monomial
   * but the empty one cancels: x - x is not 0 for an infinite x.
   */
  private TreeMap<Monomial, Rational> sumTerms(LinearForm o, boolean keepCancelled) {
    TreeMap<Monomial, Rational> sum = terms();
    try {
      for (int i = 0; i < o.size(); i++) {
        Rational r = sum.merge(o.monomial(i), o.coefficient(i), Rational::plus);
        if (r.isZero() && !o.monomial(i).isOne() && !keepCancelled) {
          return null;
        }
      }
    } catch (ArithmeticException e) {
      return null;
    }
    return sum;
  }

  /**
   * The terms of {@code this · o} with the monomials that cancel kept, as {@link
   * #plusKeepingCancelled}.
   */
  LinearForm timesKeepingCancelled(LinearForm o) {
    if (size() == 0 || o.size() == 0) {
      return null;
    }
    TreeMap<Monomial, Rational> product = productTerms(o, true);
    return product == null ? null : keepingZeros(product);
  }

  /**
   * The expanded product's terms; null when they are too many, a monomial too long, a coefficient
   * overflows, or (unless {@code keepCancelled}) a monomial but the empty one cancels.
   */
  private TreeMap<Monomial, Rational> productTerms(LinearForm o, boolean keepCancelled) {
    if ((long) size() * o.size() > MAX_TERMS * 4L) {
      return null;
    }
    TreeMap<Monomial, Rational> product = new TreeMap<>();
    try {
      for (int i = 0; i < size(); i++) {
        for (int j = 0; j < o.size(); j++) {
          Monomial m = monomial(i).times(o.monomial(j));
          if (m.degree() > MAX_DEGREE) {
            return null;
          }
          Rational r = product.merge(m, coefficient(i).times(o.coefficient(j)), Rational::plus);
          if (r.isZero() && !m.isOne() && !keepCancelled) {
            return null;
          }
        }
      }
    } catch (ArithmeticException e) {
      return null;
    }
    return product;
  }

  private static LinearForm keepingZeros(TreeMap<Monomial, Rational> terms) {
    return terms.size() > MAX_TERMS
        ? null
        : new LinearForm(new ArrayList<>(terms.keySet()), new ArrayList<>(terms.values()));
  }

  /** The first non-zero coefficient, or null when there is none. */
  Rational leadingCoefficient() {
    for (Rational c : coefficients) {
      if (!c.isZero()) {
        return c;
      }
    }
    return null;
  }

  /**
   * The image under a map linear in its operand: each monomial {@code m} becomes the form {@code
   * f(m)} (null: no image), scaled by its coefficient, and the images are added.
   */
  public LinearForm map(Function<Monomial, LinearForm> f) {
    LinearForm out = ZERO;
    for (int i = 0; i < size() && out != null; i++) {
      LinearForm image = f.apply(monomial(i));
      if (image == null) {
        return null;
      }
      LinearForm scaled = image.times(coefficient(i));
      out = scaled == null ? null : out.plus(scaled);
    }
    return out;
  }

  private TreeMap<Monomial, Rational> terms() {
    TreeMap<Monomial, Rational> t = new TreeMap<>();
    for (int i = 0; i < size(); i++) {
      t.put(monomial(i), coefficient(i));
    }
    return t;
  }

  /** The form of a map from monomials to coefficients, zero coefficients dropped. */
  public static LinearForm of(Map<Monomial, Rational> terms) {
    List<Monomial> ms = new ArrayList<>();
    List<Rational> cs = new ArrayList<>();
    for (Map.Entry<Monomial, Rational> e :
        (terms instanceof TreeMap<Monomial, Rational> t ? t : new TreeMap<>(terms)).entrySet()) {
      if (!e.getValue().isZero()) {
        ms.add(e.getKey());
        cs.add(e.getValue());
      }
    }
    return ms.size() > MAX_TERMS ? null : new LinearForm(ms, cs);
  }

  @Override
  public String toString() {
    if (monomials.isEmpty()) {
      return "0";
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < size(); i++) {
      sb.append(i == 0 ? "" : " + ").append(coefficient(i)).append('·').append(monomial(i));
    }
    return sb.toString();
  }
}
