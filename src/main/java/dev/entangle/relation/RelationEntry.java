package dev.entangle.relation;

/**
 * One pair of a relation: the G_s tensor {@code gs} equals the G_d expression {@code gd}.
 *
 * @param gs the G_s name as written (a node name or a tag)
 * @param gd the expression over G_d tensors
 * @param where a short locator for messages, e.g. {@code relations[3]}
 */
public record RelationEntry(String gs, Expr gd, String where) {}
