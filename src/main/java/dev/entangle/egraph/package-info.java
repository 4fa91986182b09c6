/**
 * A generic e-graph engine for equality saturation, in the spirit of egg. It knows nothing of
 * tensors: operators are int ids the language interns, attributes are raw longs.
 *
 * <ul>
 *   <li>{@link dev.entangle.egraph.ENode}: an operator, attributes and child class ids (a value).
 *   <li>{@link dev.entangle.egraph.EGraph}: add, union, find, rebuild; hashcons, congruence,
 *       operator index, {@link dev.entangle.egraph.Analysis} facts per class. A data structure
 *       only: it knows nothing of rules or limits.
 *   <li>{@link dev.entangle.egraph.Rewrite}: a name, a {@link dev.entangle.egraph.Searcher} and an
 *       {@link dev.entangle.egraph.Applier}. The pattern language that searches is the lemma
 *       language's ({@code dev.entangle.rules}); the engine only runs what it is given.
 *   <li>{@link dev.entangle.egraph.Runner}: owns the loop and the limits, searches a {@link
 *       dev.entangle.egraph.RootedSearcher} only near the classes that changed, and returns a
 *       {@link dev.entangle.egraph.RunReport} saying why it stopped (a {@link
 *       dev.entangle.egraph.StopReason}, each limit with its bound) and how often each rewrite
 *       fired.
 *   <li>{@link dev.entangle.egraph.SaturationMemo}: remembers what runs left of e-graphs that keep
 *       a {@link dev.entangle.egraph.Journal}, as snapshots ({@code EGraphImage}), and puts that
 *       back into an e-graph whose journal is equal up to names instead of running again.
 *   <li>{@link dev.entangle.egraph.Extractor}: cheapest {@link dev.entangle.egraph.Term} per class
 *       under a {@link dev.entangle.egraph.CostModel}.
 * </ul>
 *
 * <p>Invariants: call {@link dev.entangle.egraph.EGraph#rebuild} before queries (searching and
 * extraction expect a clean graph); every iteration order that reaches class ids is fixed, so the
 * same input gives the same ids, matches and extractions.
 */
package dev.entangle.egraph;
