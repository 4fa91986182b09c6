/**
 * The ATen front end: {@code AtenNormalizer} maps each torch.fx call ({@code Call}: its arguments
 * read by schema) to core terms, with {@code ArithmeticLowering}, {@code LayoutLowering}, {@code
 * ReductionLowering} and {@code CustomOpLowering} (declared fused kernels); operators the language
 * does not know stay opaque, named by target, arguments and result type.
 */
package dev.entangle.lower.aten;
