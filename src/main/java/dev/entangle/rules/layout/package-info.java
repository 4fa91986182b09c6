/**
 * The layout fragment as a decision procedure: compositions of {@code slice}, {@code concat},
 * {@code reshape}, {@code permute} and {@code expand} over source tensors as canonical block maps
 * ({@link dev.entangle.rules.layout.BlockMap}: a grid of boxes, each an affine map into one
 * source), and the native lemma {@code block-maps} ({@link
 * dev.entangle.rules.layout.BlockMapUnions}) that makes classes with equal block maps equal.
 */
package dev.entangle.rules.layout;
