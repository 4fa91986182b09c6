/**
 * The linear fragment as a decision procedure: every e-class's value as a canonical polynomial with
 * exact rational coefficients over atoms ({@link dev.entangle.rules.linear.LinearForm}), and the
 * native lemma {@code linear-forms} ({@link dev.entangle.rules.linear.LinearForms}) that merges
 * classes of one type whose forms are equal. Sums across ranks, additions, negations, scaling by
 * constants, products, broadcasts, layout operators and reductions linear in one operand all
 * normalize, so that an identity of this algebra is decided at any number of ranks instead of being
 * searched for one lemma at a time.
 */
package dev.entangle.rules.linear;
