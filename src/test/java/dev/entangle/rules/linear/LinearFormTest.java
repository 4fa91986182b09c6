package dev.entangle.rules.linear;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The value types of the linear fragment: rationals, monomials, forms and their interning. */
class LinearFormTest {
  private static LinearForm x(int atom, long num, long den) {
    return LinearForm.atom(atom).times(Rational.of(num, den));
  }

  @Test
  void rationalsAreExactAndInLowestTerms() {
    assertEquals(Rational.of(1, 2), Rational.of(2, 4));
    assertEquals(Rational.of(-1, 2), Rational.of(1, -2));
    assertEquals(Rational.ONE, Rational.of(1, 3).plus(Rational.of(2, 3)));
    assertEquals(Rational.of(1, 6), Rational.of(1, 2).times(Rational.of(1, 3)));
    assertEquals(Rational.of(-3, 2), Rational.of(-2, 3).reciprocal());
    assertEquals(Rational.of(1, 3), Rational.ofDouble(1.0 / 3));
    assertEquals(Rational.of(1, 48), Rational.ofDouble(1.0 / 48));
    assertNull(Rational.ofDouble(Math.PI));
    assertTrue(Rational.of(1, 3).compareTo(Rational.of(1, 2)) < 0);
    assertTrue(Rational.of(-1, 3).compareTo(Rational.of(-1, 2)) > 0);
    assertThrows(ArithmeticException.class, () -> Rational.ZERO.reciprocal());
    assertThrows(
        ArithmeticException.class, () -> Rational.of(Long.MAX_VALUE / 2).times(Rational.of(3)));
  }

  @Test
  void monomialsAreSortedMultisets() {
    assertEquals(Monomial.of(3, 1, 2), Monomial.of(1, 2, 3));
    assertEquals(Monomial.of(1, 1, 2), Monomial.of(1).times(Monomial.of(2, 1)));
    assertNotEquals(Monomial.of(1, 1), Monomial.of(1));
    assertTrue(Monomial.ONE.compareTo(Monomial.of(0)) < 0);
    assertTrue(Monomial.of(5).compareTo(Monomial.of(0, 0)) < 0);
  }

  @Test
  void formsAreCanonical() {
    LinearForm ab = x(1, 1, 1).plus(x(2, 1, 1));
    LinearForm ba = x(2, 1, 1).plus(x(1, 1, 1));
    assertEquals(ab, ba);
    // nothing cancels: x - x and x · 0 are not 0 for an infinite x
    assertNull(ab.plus(ab.negate()));
    assertNull(ab.times(Rational.ZERO));
    assertNull(ab.times(LinearForm.ZERO));
    assertEquals(LinearForm.ZERO, LinearForm.constant(Rational.ONE).times(Rational.ZERO));
    assertEquals(x(1, 2, 1), x(1, 1, 2).plus(x(1, 3, 2)));
    assertNotEquals(ab, ab.times(Rational.of(2)));
    // (a + b)(a + 2b) = a^2 + 3ab + 2b^2
    LinearForm product = ab.times(x(1, 1, 1).plus(x(2, 2, 1)));
    assertEquals(
        LinearForm.monomial(Monomial.of(1, 1))
            .plus(LinearForm.monomial(Monomial.of(1, 2)).times(Rational.of(3)))
            .plus(LinearForm.monomial(Monomial.of(2, 2)).times(Rational.of(2))),
        product);
    // (a + b)(a - b) cancels ab: no form
    assertNull(ab.times(x(1, 1, 1).plus(x(2, -1, 1))));
    assertTrue(LinearForm.constant(Rational.of(3)).isConstant());
    assertTrue(LinearForm.constant(Rational.of(3)).plus(ab).hasConstantTerm());
  }

  @Test
  void formsBeyondTheBoundsGiveUp() {
    LinearForm big = LinearForm.ZERO;
    for (int i = 0; i < LinearForm.MAX_TERMS; i++) {
      big = big.plus(LinearForm.atom(i));
    }
    assertEquals(LinearForm.MAX_TERMS, big.size());
    assertNull(big.plus(LinearForm.atom(LinearForm.MAX_TERMS)));
    LinearForm power = LinearForm.atom(0);
    for (int i = 1; i < LinearForm.MAX_DEGREE; i++) {
      power = power.times(LinearForm.atom(0));
    }
    assertNull(power.times(LinearForm.atom(0)));
  }

  @Test
  void theTableInternsEqualFormsToOneId() {
    FormTable t = new FormTable();
    int a = t.atom(Atom.ofClass(7));
    assertEquals(a, t.atom(Atom.ofClass(7)));
    LinearForm f = LinearForm.atom(a).plus(LinearForm.constant(Rational.ONE));
    int id = t.form(f);
    assertEquals(id, t.form(LinearForm.constant(Rational.ONE).plus(LinearForm.atom(a))));
    assertNotEquals(id, t.form(LinearForm.atom(a)));
    assertEquals(f, t.formAt(id));
  }
}
