/**
 * The core language and nothing else: operators ({@code Op}, each naming its {@code Semantics}:
 * shape rule and reference kernel, under {@code core.semantics}), the run's opaque operators
 * ({@code OpTable}), types ({@code TypeInfo}, {@code Dtype}), shape inference ({@code Shapes}), and
 * the lowered programs the later stages read ({@code CoreProgram}, {@code CoreValue}, {@code
 * CoreOp}, {@code Steps}, {@code CoreTerm}, {@code CoreRelation}). It imports no other stage of
 * entangle. {@code docs/operators.md} is generated from it ({@code OperatorReference}).
 */
package dev.entangle.core;
