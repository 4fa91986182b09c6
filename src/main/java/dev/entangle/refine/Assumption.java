package dev.entangle.refine;

import dev.entangle.core.CoreTerm;

/**
 * A step the check took on numbers alone: no lemma proved that G_s value {@code output} of
 * operation {@code operator} equals {@code candidate.term()}, but it did on every random draw, so
 * the check went on as if it had. A check with such a step is never {@code refines}.
 *
 * @param gdTerm what the e-graph had for the value in G_d's terms (the left side of a lemma that
 *     would prove it), or null
 */
public record Assumption(int operator, int output, Evidence.Candidate candidate, CoreTerm gdTerm) {}
