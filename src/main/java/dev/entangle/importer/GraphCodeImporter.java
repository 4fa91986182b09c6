package dev.entangle.importer;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.util.InputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Imports torch.fx graph code as printed by {@code GraphModule.print_readable()} and by TORCH_LOGS
 * graph dumps into the graph model, reading the Python as data (it is never executed).
 *
 * <p>Each placeholder, assignment and the return become one node, in order, as a graph file would
 * describe them (docs/formats.md, Graph files and Distributed graph files): {@code
 * torch.ops.NS.OP.OVERLOAD(...)} is a {@code call_function} node with target {@code NS.OP.OVERLOAD}
 * ({@code torch.ops.aten.add(...)} without an overload is {@code aten.add.default}); {@code x =
 * y[0]} is a {@code getitem} node; {@code x = self.attr} is a {@code get_attr} node; {@code #
 * File:} comments become the stack traces of the nodes that follow. How {@code auto_functionalized}
 * calls and tagging operators are normalized is described in {@link AutoFunctionalizedLowering}.
 * Anything the importer cannot read is an {@link InputException} naming the file and line.
 */
public final class GraphCodeImporter {
  private GraphCodeImporter() {}

  /** Imports one printed graph; the graph is named after the file, without {@code .py}. */
  public static Graph importGraph(Path file, ImportOptions opts) {
    SchemaRegistry schemas = SchemaRegistry.load(opts.extraSchemas());
    Set<String> used = new HashSet<>();
    Graph g = read(file, opts, schemas, used);
    checkConstantsUsed(opts, used, List.of(file));
    return g;
  }

  /**
   * Imports the ranks of a distributed implementation: rank K is the K-th file, the world size the
   * number of files, the process groups those of {@code opts}.
   */
  public static DistributedGraph importRanks(List<Path> files, ImportOptions opts) {
    if (files.isEmpty()) {
      throw new InputException(
          "no graph files given: give one printed graph per rank, rank 0's first.");
    }
    checkGroups(opts.groups(), files.size());
    SchemaRegistry schemas = SchemaRegistry.load(opts.extraSchemas());
    Set<String> used = new HashSet<>();
    List<Graph> ranks = new ArrayList<>();
    for (Path file : files) {
      ranks.add(read(file, opts, schemas, used));
    }
    checkConstantsUsed(opts, used, files);
    List<String> names = files.stream().map(Path::toString).toList();
    return new DistributedGraph(files.size(), opts.groups(), ranks, String.join(", ", names));
  }

  private static Graph read(
      Path file, ImportOptions opts, SchemaRegistry schemas, Set<String> used) {
    SourceFile src = SourceFile.read(file, "a printed graph (a .py file)");
    GraphCode code = GraphCodeParser.parse(src);
    return new GraphAssembler(src, opts, schemas, used).assemble(code, graphName(file));
  }

  private static String graphName(Path file) {
    Path fileName = file.getFileName();
    String name = fileName == null ? file.toString() : fileName.toString();
    return name.endsWith(".py") ? name.substring(0, name.length() - 3) : name;
  }

  private static void checkGroups(Map<String, List<Integer>> groups, int worldSize) {
    for (Map.Entry<String, List<Integer>> e : groups.entrySet()) {
      String name = e.getKey();
      List<Integer> ranks = e.getValue();
      if (name == null || name.isEmpty()) {
        throw new InputException(
            "a process group has an empty name: write --group NAME=R,R,... with the name the"
                + " collectives print, e.g. --group 12=0,1.");
      }
      if (ranks.isEmpty()) {
        throw new InputException(
            "process group `"
                + name
                + "` lists no ranks: write --group "
                + name
                + "=0,1 with its"
                + " member ranks.");
      }
      Set<Integer> seen = new HashSet<>();
      for (Integer r : ranks) {
        if (r == null || r < 0 || r >= worldSize) {
          throw new InputException(
              "process group `"
                  + name
                  + "` lists rank "
                  + r
                  + ", but there are "
                  + worldSize
                  + " ranks (0 to "
                  + (worldSize - 1)
                  + "), one per graph file given: list only"
                  + " ranks that have a file.");
        }
        if (!seen.add(r)) {
          throw new InputException(
              "process group `" + name + "` lists rank " + r + " twice: list each member once.");
        }
      }
    }
  }

  private static void checkConstantsUsed(ImportOptions opts, Set<String> used, List<Path> files) {
    Set<String> unused = new TreeSet<>(opts.constants().keySet());
    unused.removeAll(used);
    if (!unused.isEmpty()) {
      List<String> names = files.stream().map(Path::toString).toList();
      throw new InputException(
          "--constant gives a value for "
              + String.join(", ", unused)
              + ", but no 0-d tensor"
              + " constant of that name is read in "
              + String.join(", ", names)
              + ": check the name (e.g. _tensor_constant0) or drop the option.");
    }
  }
}
