/**
 * The refinement algorithm over core programs only: {@link dev.entangle.refine.RefinementChecker}
 * walks G_s one operation at a time, each in an e-graph of its own (replay, saturate, explore G_d),
 * and returns its results as values ({@link dev.entangle.refine.CheckResult}, the sealed {@link
 * dev.entangle.refine.Failure}, {@link dev.entangle.refine.Evidence}, {@link
 * dev.entangle.refine.Assumption}); {@link dev.entangle.refine.CheckListener} reports progress.
 */
package dev.entangle.refine;
