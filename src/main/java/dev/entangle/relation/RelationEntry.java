package dev.entangle.relation;

import dev.entangle.core.IdRange;

/**
 * One pair of a relation: the G_s tensor {@code gs} equals the G_d expression {@code gd}.
 *
 * @param gs the G_s name as written (a node name or a tag)
 * @param gd the expression over G_d tensors
 * @param where a short locator for messages, e.g. {@code relations[3]}
 * @param range the range the entry states every element of the tensor lies in ({@code "in_range"}),
 *     or null
 */
public record RelationEntry(String gs, Expr gd, String where, IdRange range) {
  /** An entry that states no range. */
  public RelationEntry(String gs, Expr gd, String where) {
    this(gs, gd, where, null);
  }
}
