package dev.entangle.importer;

import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/** Small printed graphs for tests, written to files. */
final class Snippets {
  static final String PRELUDE =
      "import torch\nfrom torch import device\n\nb8: type\nf32: type\n\n\n"
          + "class GraphModule(torch.nn.Module):\n";

  private Snippets() {}

  /** A printed module whose forward has this signature (after self) and these body lines. */
  static String module(String params, String... body) {
    StringBuilder sb = new StringBuilder(PRELUDE);
    sb.append("    def forward(self").append(params.isEmpty() ? "" : ", " + params).append("):\n");
    for (String line : body) {
      sb.append("        ").append(line).append('\n');
    }
    return sb.toString();
  }

  static Path write(Path dir, String name, String text) {
    try {
      Path p = dir.resolve(name);
      Files.writeString(p, text);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Graph importText(Path dir, String text) {
    return GraphCodeImporter.importGraph(write(dir, "g.py", text), ImportOptions.defaults());
  }

  static Graph importText(Path dir, String text, Map<String, Double> constants) {
    return GraphCodeImporter.importGraph(
        write(dir, "g.py", text), new ImportOptions(Map.of(), constants, List.of()));
  }

  static Node node(Graph g, String name) {
    Node n = g.node(name);
    if (n == null) {
      throw new AssertionError(
          "no node " + name + " in " + g.nodes().stream().map(Node::name).toList());
    }
    return n;
  }
}
