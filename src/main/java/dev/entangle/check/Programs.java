package dev.entangle.check;

import dev.entangle.core.CoreProgram;

/**
 * Both sides of a check lowered into the core language.
 *
 * @param gs G_s
 * @param gd G_d, every rank
 */
public record Programs(CoreProgram gs, CoreProgram gd) {}
