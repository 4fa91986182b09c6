/**
 * A numeric interpreter of the core language ({@link dev.entangle.core.Op}): it evaluates G_s and
 * every rank of G_d on concrete inputs. It knows nothing of e-graphs, lemmas or proofs.
 *
 * <ul>
 *   <li>{@link dev.entangle.eval.Tensor}: dense row-major values held as doubles, whatever the
 *       dtype (the rounding model is on the class); {@link dev.entangle.eval.Rounding} is what a
 *       cast does; {@link dev.entangle.eval.Tolerance} when two values count as equal.
 *   <li>{@link dev.entangle.eval.Kernels}: the value of every core operator, one family per class
 *       (point-wise, layout, reductions, row-wise, matmul, indexing, attention) and the
 *       element-wise ATen operators the language keeps opaque ({@code AtenPointwise}); work is
 *       charged to a {@link dev.entangle.eval.WorkBudget} first.
 *   <li>{@link dev.entangle.eval.EvalBuilder}: a {@link dev.entangle.core.TermBuilder} whose
 *       handles are {@link dev.entangle.eval.Value}s computed on the spot, so the checker's own
 *       lowering evaluates a node; {@link dev.entangle.eval.GraphEvaluator} walks G_s or G_d with
 *       it ({@code GraphWalker} is the walk alone) and returns an {@link
 *       dev.entangle.eval.Evaluation}.
 *   <li>{@link dev.entangle.eval.InputSampler}: inputs that satisfy an input relation, drawn from a
 *       seed ({@code RelationInverter} undoes each expression, {@code IndexBounds} keeps ids inside
 *       what they index).
 *   <li>{@link dev.entangle.eval.CleanSearch}: a clean expression of G_d values equal to a G_s
 *       value, or the closest one and how it differs.
 * </ul>
 *
 * <p>Invariants: kernels never write into their operands; an undefined value (uninitialized memory,
 * a random sample) or an unavailable one (an operator without numeric semantics, an index out of
 * range, the budget spent) is never given a number, and everything computed from it says so; every
 * iteration order is fixed and every random number comes from one seeded generator, so the same
 * inputs and seed give the same values.
 */
package dev.entangle.eval;
