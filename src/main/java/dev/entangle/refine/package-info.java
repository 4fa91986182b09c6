/**
 * The refinement check: whether G_d refines G_s under an input relation, over both programs as
 * lowered into the core language.
 *
 * <ul>
 *   <li>{@link dev.entangle.refine.RefinementChecker}: the entry point (the paper's Listing 1); it
 *       walks G_s's operations in order ({@code GsWalk}) with one {@code CheckRun}, which defers
 *       chains, asks the {@link dev.entangle.refine.Numbers} where a proof fails, and builds the
 *       {@link dev.entangle.refine.CheckResult}.
 *   <li>{@code OperatorCheck}: one operation's e-graph (Listings 2 and 3): its term over the clean
 *       G_d terms its inputs are related to, saturated by the lemmas through the shared saturation
 *       memo, G_d values brought in a few steps at a time; the cheapest clean expressions of its
 *       outputs are their relation. Checks may run ahead of their turn on other threads ({@code
 *       Speculation}); the outcome is the same.
 *   <li>Values: the {@link dev.entangle.refine.Verdict}, the {@link dev.entangle.refine.Failure}
 *       (where and why, with the limit reached first as an {@link dev.entangle.egraph.StopReason}),
 *       {@link dev.entangle.refine.Evidence} and {@link dev.entangle.refine.Assumption} (steps
 *       taken on numbers, never {@code refines}); the package prints nothing, a {@link
 *       dev.entangle.refine.CheckListener} hears progress.
 * </ul>
 *
 * <p>Soundness: an e-class holds only what the input relation, the lemmas and G_d's own definitions
 * make equal, so an extracted clean expression is a certificate; {@code refines} is returned only
 * with every required output's expression in hand.
 */
package dev.entangle.refine;
