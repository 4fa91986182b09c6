package dev.entangle.egraph;

/** One place a pattern matches: the canonical class the pattern's root matched and the bindings. */
public record Match(int classId, Subst subst) {}
