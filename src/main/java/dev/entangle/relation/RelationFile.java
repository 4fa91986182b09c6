package dev.entangle.relation;

import java.util.List;

/**
 * A relation file (docs/formats.md, Relation files) with its sugar ({@code shard}, {@code
 * replicate}, {@code as}) already expanded into plain entries.
 *
 * @param source the file path, for messages
 * @param relations the input relation R_i
 * @param equalities groups of G_d expressions known to be equal
 * @param outputs the G_s tensors the output relation must cover, or null for all G_s outputs
 * @param expect user expectations: each pair must be proved
 */
public record RelationFile(
    String source,
    List<RelationEntry> relations,
    List<List<Expr>> equalities,
    List<String> outputs,
    List<RelationEntry> expect) {
  public RelationFile {
    relations = List.copyOf(relations);
    equalities = equalities.stream().map(List::copyOf).toList();
    outputs = outputs == null ? null : List.copyOf(outputs);
    expect = List.copyOf(expect);
  }
}
