/**
 * Numbers for the reference kernels: {@code Tensor} (dense row-major values held as doubles, with
 * the rounding model of each dtype in {@code Rounding}), {@code Tolerance} (when two values count
 * as equal), {@code SpecialFunctions}, {@code Strided} index walks, the element-wise ATen functions
 * the language keeps opaque ({@code AtenPointwise}), and {@code EvalException} (a value that is not
 * defined).
 */
package dev.entangle.core.numeric;
