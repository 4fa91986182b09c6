/**
 * A generic e-graph engine for equality saturation, in the spirit of egg. It knows nothing of
 * tensors: operators are int ids the language interns, attributes are raw longs.
 *
 * <ul>
 *   <li>{@link dev.entangle.egraph.ENode}: an operator, attributes and child class ids (a value).
 *   <li>{@link dev.entangle.egraph.EGraph}: add, union, find, rebuild; hashcons, congruence,
 *       operator index, {@link dev.entangle.egraph.Analysis} facts per class.
 *   <li>{@link dev.entangle.egraph.Pattern}, {@link dev.entangle.egraph.AttrPattern}, {@link
 *       dev.entangle.egraph.Subst}, {@link dev.entangle.egraph.Matcher}, {@link
 *       dev.entangle.egraph.Instantiator}: e-matching and building instances.
 *   <li>{@link dev.entangle.egraph.Rewrite} (name, left pattern, {@link
 *       dev.entangle.egraph.Condition}, {@link dev.entangle.egraph.Applier}) and {@link
 *       dev.entangle.egraph.Runner}, which owns the loop and the limits and returns a {@link
 *       dev.entangle.egraph.RunReport} saying why it stopped.
 *   <li>{@link dev.entangle.egraph.Extractor}: cheapest {@link dev.entangle.egraph.Term} per class
 *       under a {@link dev.entangle.egraph.CostModel}.
 * </ul>
 *
 * <p>Invariants: call {@link dev.entangle.egraph.EGraph#rebuild} before queries (matching and
 * extraction refuse a graph with pending unions); every iteration order that reaches class ids is
 * fixed, so the same input gives the same ids, matches and extractions.
 */
package dev.entangle.egraph;
