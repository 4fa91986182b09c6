package dev.entangle.rules.linear;

import dev.entangle.util.Fractions;

/**
 * An exact rational number {@code num / den} in lowest terms with {@code den > 0}. Arithmetic that
 * would overflow a long throws {@link ArithmeticException}; the forms built from it then give up
 * (their class stays an atom) rather than round.
 *
 * @param num numerator
 * @param den denominator, positive
 */
public record Rational(long num, long den) implements Comparable<Rational> {
  public static final Rational ZERO = new Rational(0, 1);
  public static final Rational ONE = new Rational(1, 1);

  public Rational {
    if (den <= 0) {
      throw new ArithmeticException("denominator must be positive: " + num + "/" + den);
    }
    long g = Fractions.gcd(Math.abs(num), den);
    if (g > 1) {
      num /= g;
      den /= g;
    }
  }

  /** {@code num / den} for any non-zero {@code den}. */
  public static Rational of(long num, long den) {
    if (den == 0) {
      throw new ArithmeticException("division by zero");
    }
    return den < 0
        ? new Rational(Math.negateExact(num), Math.negateExact(den))
        : new Rational(num, den);
  }

  // equals and hashCode written out, as LinearForm's are
  @Override
  public boolean equals(Object o) {
    return o instanceof Rational r && r.num == num && r.den == den;
  }

  @Override
  public int hashCode() {
    return Long.hashCode(num) * 31 + Long.hashCode(den);
  }

  public static Rational of(long n) {
    return new Rational(n, 1);
  }

  /**
   * The simplest small fraction that the double rounds (as the checker reads a model's constants,
   * {@link dev.entangle.rules.Rationals}), or null when there is none.
   */
  public static Rational ofDouble(double x) {
    long[] f = dev.entangle.rules.Rationals.of(x);
    return f == null ? null : new Rational(f[0], f[1]);
  }

  public boolean isZero() {
    return num == 0;
  }

  public boolean isOne() {
    return num == 1 && den == 1;
  }

  public Rational plus(Rational o) {
    long g = Fractions.gcd(den, o.den);
    long d = Math.multiplyExact(den / g, o.den);
    long n = Math.addExact(Math.multiplyExact(num, o.den / g), Math.multiplyExact(o.num, den / g));
    return new Rational(n, d);
  }

  public Rational times(Rational o) {
    long g1 = Fractions.gcd(Math.abs(num), o.den);
    long g2 = Fractions.gcd(Math.abs(o.num), den);
    return new Rational(
        Math.multiplyExact(num / g1, o.num / g2), Math.multiplyExact(den / g2, o.den / g1));
  }

  public Rational negate() {
    return new Rational(Math.negateExact(num), den);
  }

  /** {@code 1 / this}; throws for zero. */
  public Rational reciprocal() {
    return of(den, num);
  }

  /** The nearest double. */
  public double toDouble() {
    return (double) num / den;
  }

  @Override
  public int compareTo(Rational o) {
    return Math.multiplyHigh(num, o.den) != Math.multiplyHigh(o.num, den)
        ? Long.compare(Math.multiplyHigh(num, o.den), Math.multiplyHigh(o.num, den))
        : Long.compareUnsigned(num * o.den, o.num * den);
  }

  @Override
  public String toString() {
    return den == 1 ? Long.toString(num) : num + "/" + den;
  }
}
