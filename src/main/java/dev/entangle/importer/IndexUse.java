package dev.entangle.importer;

/**
 * A {@code name = base[index]} statement, seen before the base's node is built, so that a
 * multi-output node can describe its items.
 *
 * @param annotation the getitem's type annotation, or null
 */
record IndexUse(String name, int index, String annotation, int line) {}
