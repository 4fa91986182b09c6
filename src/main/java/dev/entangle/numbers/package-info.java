/**
 * Numeric evidence for the checker ({@link dev.entangle.refine.Numbers}): samples inputs that
 * satisfy the input relation ({@code numbers.sampling}), evaluates the lowered G_s and G_d ({@link
 * dev.entangle.eval}), and tells a bug ({@code CleanSearch}: a witness: no clean expression of G_d
 * equals the value) from a gap in the lemmas (a candidate clean expression that holds on every
 * draw). It only ever weakens a verdict's claim: the numbers cannot turn a non-proof into {@code
 * refines}.
 */
package dev.entangle.numbers;
