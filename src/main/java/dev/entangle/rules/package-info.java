/**
 * The lemma language and its engine: lemma files ({@code *.lemmas}) read into rewrites for the
 * e-graph ({@link dev.entangle.egraph.Rewrite}).
 *
 * <ul>
 *   <li>Reading: {@code SExprReader} and {@code RuleCompiler} turn a file's forms ({@code rule},
 *       {@code birule}, {@code native}, {@code ops}) into {@link dev.entangle.rules.Rule}s, with
 *       errors that name the file and line; {@link dev.entangle.rules.LemmaLibrary} loads a folder
 *       into {@link dev.entangle.rules.Lemmas}.
 *   <li>Rules: a pattern ({@code Pat}) searched by {@code RuleMatcher} (incrementally, from the
 *       classes that changed: {@code RuleSearcher}) and a template ({@code Template}) built by
 *       {@code RuleApplier}, with shape arithmetic and side conditions ({@code Fn}, {@code
 *       ShapeMath}, {@code Evaluator}).
 *   <li>Native lemmas ({@link dev.entangle.rules.NativeRule}): lemmas over a variable number of
 *       existing terms (tilings, regroupings), written in Java as a search for typed matches that
 *       polls its deadline and an application of each match.
 *   <li>Lemma cases ({@link dev.entangle.rules.LemmaCase}) and {@link
 *       dev.entangle.rules.TermReader}: terms in the lemma-case syntax, for tests, {@code entangle
 *       lemmas} and the lemmas' checks on numbers.
 * </ul>
 *
 * <p>Every lemma only adds equalities and is assumed sound; the rules read the core language
 * ({@code dev.entangle.core}) and nothing of the graphs, relations or importers.
 */
package dev.entangle.rules;
