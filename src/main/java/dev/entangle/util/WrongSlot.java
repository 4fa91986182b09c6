package dev.entangle.util;

/**
 * What to say when a file is given in the wrong place on the command line: a relation file where a
 * graph goes, or a graph where the relation goes.
 */
public final class WrongSlot {
  /** A relation file read as a graph (in the GS or GD slot). */
  public static final String RELATION_AS_GRAPH =
      "this is a relation file (entangle-relation/1), given where a graph file goes: the command"
          + " is `entangle check GS GD --rel RI`, with the graph files first and the relation"
          + " file after --rel.";

  /** A graph file read as a relation (after {@code --rel}). */
  public static final String GRAPH_AS_RELATION =
      "this is a graph file (entangle-fx/1), given as the relation file: the command is"
          + " `entangle check GS GD --rel RI`, with the relation file (\"format\":"
          + " \"entangle-relation/1\") after --rel.";

  private WrongSlot() {}
}
