package dev.entangle.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.graph.JsonTree;
import dev.entangle.graph.Node;
import dev.entangle.importer.GraphCodeImporter;
import dev.entangle.importer.ImportOptions;
import dev.entangle.importer.hlo.HloImporter;
import dev.entangle.importer.hlo.HloShardingRelation;
import dev.entangle.importer.pt2.Pt2Importer;
import dev.entangle.lower.xla.XlaCustomCalls;
import dev.entangle.util.AtomicFiles;
import dev.entangle.util.InputException;
import dev.entangle.util.OutputGuard;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code entangle import FILE... -o OUT}: printed torch.fx graph code, or XLA HLO text, to the JSON
 * formats.
 */
@Command(
    name = "import",
    mixinStandardHelpOptions = true,
    description =
        "Converts graph code printed by torch.fx (print_readable, TORCH_LOGS=graph_code dumps), a"
            + " torch.export archive (.pt2, torch.export.save) or an XLA HLO text module to a graph file;"
            + " several FILEs give a G_d file whose rank K is the K-th FILE, and an HLO module with --ranks N"
            + " a G_d file of N ranks.")
final class ImportCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Parameters(
      arity = "1..*",
      paramLabel = "FILE",
      description = "printed graph code, .pt2 archives or HLO modules, one file per rank")
  List<Path> files;

  @Option(
      names = {"-o", "--output"},
      required = true,
      paramLabel = "OUT",
      description = "the JSON file to write")
  Path out;

  @Option(
      names = "--group",
      paramLabel = "NAME=R,R,...",
      description = "the ranks of a process group that collectives name (repeatable)")
  List<String> groups = new ArrayList<>();

  @Option(
      names = "--constant",
      paramLabel = "NAME=VALUE",
      description =
          "the value of a 0-d tensor constant (self._tensor_constantN) the code does not show (repeatable)")
  List<String> constants = new ArrayList<>();

  @Option(
      names = "--schemas",
      paramLabel = "FILE",
      description = "extra custom operator schemas, one per line (repeatable)")
  List<Path> schemas = new ArrayList<>();

  @Option(
      names = "--format",
      paramLabel = "FORMAT",
      description =
          "fx (printed torch.fx code), pt2 (torch.export archive) or hlo (XLA HLO text); default:"
              + " told by the first file's content")
  String format;

  @Option(
      names = "--ranks",
      paramLabel = "N",
      description =
          "HLO only: the number of ranks an SPMD program runs on (gives a G_d file of N ranks)")
  Integer ranks;

  @Option(
      names = "--relation",
      paramLabel = "FILE",
      description =
          "HLO only: also write the input relation the ENTRY parameters' sharding annotations"
              + " declare, of this module before SPMD partitioning (G_s) to the partitioned program"
              + " imported with --ranks N (G_d)")
  Path relation;

  @Option(names = "--debug", description = "print stack traces of internal errors")
  boolean debug;

  @Override
  public Integer call() {
    List<Path> read = new ArrayList<>(files);
    read.addAll(schemas);
    List<OutputGuard.Named> written = new ArrayList<>(List.of(new OutputGuard.Named("-o", out)));
    if (relation != null) {
      written.add(new OutputGuard.Named("--relation", relation));
    }
    OutputGuard.check(read, written);
    boolean pt2 = isPt2();
    if (!pt2 && isHlo()) {
      return importHlo();
    }
    if (relation != null) {
      throw new InputException(
          "--relation applies to an XLA HLO module before SPMD partitioning, whose parameters"
              + " carry sharding annotations; for torch, entangle_capture derives the relation"
              + " from the plan.");
    }
    if (ranks != null) {
      throw new InputException(
          "--ranks applies to XLA HLO modules; printed torch.fx code and .pt2 archives give one"
              + " file per rank.");
    }
    return pt2 ? importPt2(groups()) : fx(groups());
  }

  private Map<String, List<Integer>> groups() {
    Map<String, List<Integer>> g = new LinkedHashMap<>();
    for (String s : groups) {
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new InputException("--group " + s + ": expected NAME=R,R,... such as --group tp=0,1");
      }
      List<Integer> ranks = new ArrayList<>();
      for (String r : s.substring(eq + 1).split(",")) {
        try {
          ranks.add(Integer.parseInt(r.strip()));
        } catch (NumberFormatException e) {
          throw new InputException("--group " + s + ": '" + r + "' is not a rank number");
        }
      }
      g.put(s.substring(0, eq), ranks);
    }
    return g;
  }

  private Integer fx(Map<String, List<Integer>> g) {
    Map<String, Double> c = new LinkedHashMap<>();
    for (String s : constants) {
      int eq = s.indexOf('=');
      if (eq <= 0) {
        throw new InputException(
            "--constant " + s + ": expected NAME=VALUE such as --constant _tensor_constant0=0");
      }
      try {
        c.put(s.substring(0, eq), Double.parseDouble(s.substring(eq + 1).strip()));
      } catch (NumberFormatException e) {
        throw new InputException(
            "--constant " + s + ": '" + s.substring(eq + 1) + "' is not a number");
      }
    }
    ImportOptions opts = new ImportOptions(g, c, schemas);
    if (files.size() == 1) {
      GraphJson.write(GraphCodeImporter.importGraph(files.get(0), opts), out);
    } else {
      GraphJson.write(GraphCodeImporter.importRanks(files, opts), out);
    }
    spec.commandLine().getOut().println("wrote " + out);
    return 0;
  }

  private boolean isHlo() {
    if (format == null) {
      Path first = files.get(0);
      return Files.isRegularFile(first) && HloImporter.isHlo(first);
    }
    return switch (format) {
      case "hlo" -> true;
      case "fx", "pt2" -> false;
      default ->
          throw new InputException(
              "--format "
                  + format
                  + ": expected fx (printed torch.fx code), pt2 (torch.export archive) or hlo"
                  + " (XLA HLO text).");
    };
  }

  private boolean isPt2() {
    if (format == null) {
      Path first = files.get(0);
      return Files.isRegularFile(first) && Pt2Importer.isArchive(first);
    }
    return format.equals("pt2");
  }

  private Integer importPt2(Map<String, List<Integer>> g) {
    if (!constants.isEmpty() || !schemas.isEmpty()) {
      throw new InputException(
          "--constant and --schemas apply to printed torch.fx code; a .pt2 archive records its"
              + " constants and operators itself.");
    }
    if (files.size() == 1 && g.isEmpty()) {
      GraphJson.write(Pt2Importer.importGraph(files.get(0)), out);
    } else {
      GraphJson.write(Pt2Importer.importRanks(files, g), out);
    }
    spec.commandLine().getOut().println("wrote " + out);
    return 0;
  }

  private Integer importHlo() {
    if (!groups.isEmpty() || !constants.isEmpty() || !schemas.isEmpty()) {
      throw new InputException(
          "--group, --constant and --schemas apply to printed torch.fx code; an HLO module"
              + " names its replica groups and literals itself.");
    }
    if (relation != null && (files.size() != 1 || ranks != null)) {
      throw new InputException(
          "--relation reads the shardings of one module before partitioning (G_s): import it"
              + " alone, without --ranks, and the partitioned module separately with --ranks N.");
    }
    Graph first;
    if (files.size() == 1 && ranks == null) {
      first = HloImporter.importGraph(files.get(0));
      ObjectNode rel = relation == null ? null : HloShardingRelation.of(files.get(0));
      GraphJson.write(first, out);
      if (rel != null) {
        AtomicFiles.writeString(relation, JsonTree.pretty(rel) + "\n");
      }
    } else {
      DistributedGraph gd = HloImporter.importRanks(files, ranks == null ? files.size() : ranks);
      first = gd.rank(0);
      GraphJson.write(gd, out);
    }
    spec.commandLine().getOut().println("wrote " + out);
    if (relation != null) {
      spec.commandLine().getOut().println("wrote " + relation);
    }
    Map<String, Integer> opaque = new TreeMap<>();
    for (Node n : first.nodes()) {
      if (n.target().equals("xla.custom_call")
          && n.kwarg("custom_call_target") instanceof Arg.StrArg t
          && !XlaCustomCalls.TARGETS.contains(t.value())) {
        opaque.merge(t.value(), 1, Integer::sum);
      }
    }
    if (!opaque.isEmpty()) {
      spec.commandLine()
          .getErr()
          .println(
              "note: custom calls without declared semantics stay opaque (they map only"
                  + " where G_d makes the same call on related operands): "
                  + opaque);
    }
    return 0;
  }
}
