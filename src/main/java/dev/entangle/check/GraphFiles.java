package dev.entangle.check;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.importer.hlo.HloImporter;
import dev.entangle.util.InputException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A check's graph files: the JSON formats, or an XLA HLO text module, imported in memory as {@code
 * entangle import} imports it (told by the file's first bytes).
 */
public final class GraphFiles {
  private GraphFiles() {}

  /** G_s: a graph file or an HLO module. */
  public static Graph graph(Path file) {
    return isHlo(file) ? HloImporter.importGraph(file) : GraphJson.readGraph(file);
  }

  /**
   * G_d: a G_d file, or an SPMD HLO module run on {@code ranks} ranks (null: as many as its header
   * says). {@code ranks} applies to HLO only.
   */
  public static DistributedGraph distributed(Path file, Integer ranks) {
    if (isHlo(file)) {
      return HloImporter.importSpmd(file, ranks);
    }
    if (ranks != null) {
      throw new InputException(
          "--ranks "
              + ranks
              + " applies to a G_d given as an XLA HLO module; "
              + file
              + " is not one (a G_d file lists its ranks itself). Leave --ranks out.");
    }
    return GraphJson.readDistributed(file);
  }

  private static boolean isHlo(Path file) {
    return Files.isRegularFile(file) && HloImporter.isHlo(file);
  }
}
