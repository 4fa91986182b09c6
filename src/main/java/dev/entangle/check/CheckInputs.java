package dev.entangle.check;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.relation.RelationFile;
import dev.entangle.relation.RelationReader;
import java.nio.file.Path;

/**
 * What one check reads: G_s, G_d and the input relation, parsed but not yet validated against each
 * other.
 *
 * @param gs the sequential model
 * @param gd the distributed implementation
 * @param relation the relation file, its sugar expanded for G_d's world size
 */
public record CheckInputs(Graph gs, DistributedGraph gd, RelationFile relation) {

  /** Reads the three files, in this order (the first bad one is the error reported). */
  public static CheckInputs read(Path gs, Path gd, Path relation) {
    Graph g = GraphJson.readGraph(gs);
    DistributedGraph d = GraphJson.readDistributed(gd);
    return new CheckInputs(g, d, RelationReader.read(relation, d.worldSize()));
  }
}
