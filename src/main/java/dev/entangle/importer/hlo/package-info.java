/**
 * {@code entangle import} of XLA HLO text modules (what TPUs, torch-xla, JAX and AWS Neuron compile
 * to) into the graph model of {@code dev.entangle.graph}: the same graph files as printed torch.fx
 * code gives, so that {@code check} needs no HLO knowledge. The entry point is {@link
 * dev.entangle.importer.hlo.HloImporter}.
 *
 * <p>Pipeline: {@code HloParser} over {@code HloScanner} (text to {@code HloModule}: computations,
 * instructions, raw attributes without comments; every construct XLA's printer writes, sizes
 * range-checked, nesting bounded, errors at {@code FILE:LINE:COLUMN}) → {@code Inliner} (the ENTRY
 * computation with fusions and calls inlined, {@code opt-barrier} and {@code domain} their operand,
 * a {@code conditional} whose branch is a constant of the rank that branch) → {@code KnownValues}
 * (small arrays computed from literals and the rank) → {@code HloNodes} (one node per instruction,
 * its opcode checked against {@code HloOpcodes}, with {@code HloCollectives} for collectives,
 * {@code BodyTexts} for called computations, {@code HloSharding} for shardings and {@code
 * HloStackTraces} for metadata). The instructions' meaning is {@code ops.XlaLowering}'s. Every
 * error is an {@code InputException} naming the file and line.
 *
 * <p>What the import assumes, and why it is sound:
 *
 * <ul>
 *   <li><b>One SPMD program, N ranks.</b> With {@code --ranks N}, rank K's graph is the program
 *       with rank K's own parameters; {@code partition-id} and {@code replica-id} are K, and
 *       everything computed from them and literals alone is a constant of that rank (a dynamic
 *       slice at {@code partition-id * 512} is a plain slice on each rank). The ids in {@code
 *       replica_groups} and {@code source_target_pairs} are ranks, as in a program with one
 *       partition per replica or one replica per partition.
 *   <li><b>Elided literals.</b> A literal whose values the dump elides ({@code constant({...})}) is
 *       a value of its own, identified by the instruction's name and printed form (type and text):
 *       equal in G_s and on every rank exactly when both are. Within one SPMD program this is exact
 *       (every rank runs the same instruction). Between G_s and G_d it assumes what refinement
 *       assumes anyway (paper section 3.3): both were compiled from the same code with the same
 *       settings, so an instruction of one name and type holds the same values; a literal whose
 *       values changed while its name and type did not would go unseen. Literals printed in full
 *       (XLA's {@code --xla_dump_large_constants}) are compared by value instead.
 *   <li><b>Gathers of whole rows</b> are embedding lookups, which assume indices in range (XLA
 *       clamps them; torch rejects them). Other gathers, dynamic slices at offsets known only at
 *       run time, reduces whose initial value is not the reducer's identity, and unknown custom
 *       calls stay opaque: they map only when G_d computes the same instruction on related
 *       operands.
 *   <li><b>Collectives</b> become torch's functional collectives (docs/formats.md, Collectives); a
 *       reducer must be add, maximum or minimum. Tuple-form all-to-all, collectives of several
 *       operands, tuple parameters and token values are reported as not supported yet.
 *   <li><b>Called computations</b> that stay opaque ({@code to_apply} of a sort, a scatter, a
 *       reduce-window, ...) are compared by their canonical text, which means the same function on
 *       every rank only when the body reads no rank: a body with {@code partition-id}, {@code
 *       replica-id} or a collective is refused. Loops, branches not known per rank, random numbers,
 *       host transfers and asynchronous wrappers are refused with the reason ({@code HloOpcodes}).
 * </ul>
 */
package dev.entangle.importer.hlo;
