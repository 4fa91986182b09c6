/**
 * One class per operator family, each the meaning of its operators in one place: the shape and
 * dtype rule, the reference kernel the interpreter runs, and extra work units. Families: {@code
 * Leaves}, {@code Elementwise}, {@code Layout}, {@code Reductions}, {@code Rowwise}, {@code
 * Matmul}, {@code Indexing}, {@code Attention}, {@code Tuples}.
 */
package dev.entangle.core.semantics;
