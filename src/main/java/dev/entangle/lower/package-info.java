/**
 * The lowering stage: each graph side becomes an immutable {@code CoreProgram} ({@code Lowering},
 * one pass over the nodes; every node lowered exactly once and its lowering recorded as {@code
 * Steps}); the relation becomes a {@code CoreRelation} ({@code RelationLowering}). The front ends'
 * mappings are sub-packages: {@code lower.aten} (torch.fx/ATen and custom kernels), {@code
 * lower.xla} (XLA HLO), {@code lower.collectives} (collectives paired across ranks). {@code
 * IdenticalValues} is a pass over the lowered G_d; {@code TermText} and {@code ProgramDump} print
 * core terms.
 */
package dev.entangle.lower;
