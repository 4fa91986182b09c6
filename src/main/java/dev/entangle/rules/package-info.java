/**
 * The lemma language: lemma files read ({@code SExprReader}) and compiled ({@code RuleCompiler})
 * into rules the e-graph runs (matched by {@code RuleMatcher}, applied by {@code RuleApplier}), the
 * rule functions, native lemmas, and the lemma-case syntax ({@code TermReader}, {@code LemmaCase}).
 */
package dev.entangle.rules;
