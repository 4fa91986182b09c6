/**
 * {@code entangle import} of torch.export's serialized program: the {@code .pt2} zip archive {@code
 * torch.export.save} writes, whose {@code models/model.json} holds the exported graph as JSON. The
 * entry point is {@link dev.entangle.importer.pt2.Pt2Importer}.
 *
 * <p>Pipeline: {@code Pt2Archive} (the zip, its parts and the schema version) → {@code
 * Pt2GraphReader} (the graph module's inputs, nodes and outputs to the graph model of {@code
 * dev.entangle.graph}, with {@code Pt2Arguments} for argument values and {@code Pt2Types} for
 * tensor metadata). The archive's weights are not read: the checker needs types, not values.
 *
 * <p>The normalized forms are those of printed graph code: inputs are placeholders named as the
 * program names them ({@code p_fc1_weight}, {@code b_scale}, {@code x}) with a parameter's or
 * buffer's qualified name as {@code meta.tag}; {@code torch.ops.NS.OP.OVERLOAD} is target {@code
 * NS.OP.OVERLOAD}; an operator with several results is a tuple node followed by a {@code getitem}
 * for every result the graph uses; one that returns nothing is a tuple node with no items; the
 * recorded stack trace is {@code meta.stack_trace}. Every error is an {@code InputException} naming
 * the archive (and the node) and what to do.
 */
package dev.entangle.importer.pt2;
