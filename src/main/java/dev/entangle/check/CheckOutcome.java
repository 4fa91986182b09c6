package dev.entangle.check;

import dev.entangle.refine.CheckResult;

/**
 * A finished check: its result and the programs whose value ids the result speaks of.
 *
 * @param result what the checker found
 * @param programs the lowered G_s and G_d
 */
public record CheckOutcome(CheckResult result, Programs programs) {}
