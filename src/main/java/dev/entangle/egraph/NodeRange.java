package dev.entangle.egraph;

/**
 * Some of a class's nodes: {@code nodes[from]} up to, not including, {@code nodes[to]}. A view of
 * the e-graph's own array; not to be modified.
 */
public record NodeRange(ENode[] nodes, int from, int to) {}
