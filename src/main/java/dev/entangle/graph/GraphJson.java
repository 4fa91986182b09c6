package dev.entangle.graph;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.util.AtomicFiles;
import dev.entangle.util.InputException;
import java.nio.file.Path;

/**
 * Reads and writes graph files (docs/formats.md, Graph files) and G_d files (docs/formats.md,
 * Distributed graph files).
 *
 * <p>Reading validates the whole file and reports the first problem as an {@link InputException}
 * naming the file, the rank, the node and the field. A file is read node by node, without a tree of
 * the whole file (a G_d of hundreds of megabytes would take gigabytes as one); a file with a
 * problem is read again as a tree, whose decoder says which problem comes first. Writing produces
 * exactly the contract format, so {@code write(read(x))} round-trips: nodes, arguments, keyword
 * order and meta are kept, integers stay integers and infinities and NaN are written as {@code
 * {"float": ...}}.
 */
public final class GraphJson {
  private GraphJson() {}

  /** Reads a graph file: the sequential model G_s, or any single graph. */
  public static Graph readGraph(Path file) {
    String source = file.toString();
    try {
      return JsonFiles.stream(
          file, "graph file", p -> GraphDecoder.decodeStreaming(p, source, true));
    } catch (InputException e) {
      return GraphDecoder.decode(JsonFiles.read(file, "graph file"), source, true);
    }
  }

  /**
   * Reads a G_d file; a plain graph file is accepted as a one-rank G_d (world size 1, its graph as
   * rank 0).
   */
  public static DistributedGraph readDistributed(Path file) {
    String source = file.toString();
    try {
      return JsonFiles.stream(file, "G_d file", p -> DistributedDecoder.decodeStreaming(p, source));
    } catch (InputException e) {
      return DistributedDecoder.decode(JsonFiles.read(file, "G_d file"), source);
    }
  }

  /** The graph as a graph-file JSON object. */
  public static ObjectNode toJson(Graph g) {
    return GraphEncoder.graph(g, true);
  }

  /** The G_d as a G_d-file JSON object (rank objects without {@code format}). */
  public static ObjectNode toJson(DistributedGraph d) {
    return GraphEncoder.distributed(d);
  }

  /** Writes a graph file, one node per line. */
  public static void write(Graph g, Path file) {
    writeText(GraphEncoder.layout(toJson(g)), file);
  }

  /** Writes a G_d file, one node per line. */
  public static void write(DistributedGraph d, Path file) {
    writeText(GraphEncoder.layout(toJson(d)), file);
  }

  private static void writeText(String text, Path file) {
    AtomicFiles.writeString(file, text);
  }
}
