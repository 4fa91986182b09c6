/**
 * A numeric interpreter of lowered programs ({@link dev.entangle.core.CoreProgram}): it evaluates
 * G_s and every rank of G_d on concrete inputs with each operator's reference kernel ({@link
 * dev.entangle.core.Op#semantics()}). It reads no graph or relation file, and knows nothing of
 * e-graphs, lemmas or proofs.
 *
 * <ul>
 *   <li>{@link dev.entangle.eval.Kernels}: one step of the interpreter, the operator's reference
 *       kernel (one family per class, in {@code core.semantics}) with its work charged to a {@link
 *       dev.entangle.eval.WorkBudget} first.
 *   <li>{@link dev.entangle.eval.EvalBuilder}: a {@link dev.entangle.core.TermBuilder} whose
 *       handles are {@link dev.entangle.eval.Value}s computed on the spot, so the checker's own
 *       lowering evaluates a node; {@link dev.entangle.eval.GraphEvaluator} walks G_s or G_d with
 *       it ({@code GraphWalker} is the walk alone) and returns an {@link
 *       dev.entangle.eval.Evaluation}.
 * </ul>
 *
 * <p>Invariants: kernels never write into their operands; an undefined value (uninitialized memory,
 * a random sample) or an unavailable one (an operator without numeric semantics, an index out of
 * range, the budget spent) is never given a number, and everything computed from it says so; every
 * iteration order is fixed and every random number comes from one seeded generator, so the same
 * inputs and seed give the same values.
 */
package dev.entangle.eval;
