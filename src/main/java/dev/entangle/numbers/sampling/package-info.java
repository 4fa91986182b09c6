/**
 * Inputs that satisfy an input relation, drawn from a seed ({@code InputSampler}): {@code
 * RelationInverter} undoes each expression to set the G_d tensors it names, {@code IndexBounds}
 * keeps integer ids inside what they index, {@code RandomValues} draws, {@code Partial} holds
 * values known in part.
 */
package dev.entangle.numbers.sampling;
