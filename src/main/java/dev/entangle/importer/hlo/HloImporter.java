package dev.entangle.importer.hlo;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.importer.SourceFile;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Imports XLA HLO text modules into the graph model: a program as a graph file, or an SPMD program
 * as a G_d of N ranks, each the program with its own parameters and {@code partition-id} / {@code
 * replica-id} equal to the rank (see {@link HloNodes} for the nodes, {@code package-info} for the
 * assumptions). Every error is an {@link InputException} naming the file and line.
 */
public final class HloImporter {
  private static final String HLO = "an HLO text module (.hlo) as XLA prints it";

  /** How much of a file is read to tell whether it is an HLO module. */
  private static final int SNIFF_BYTES = 1 << 16;

  /** The most ranks one SPMD module is imported on: each is a copy of the program. */
  static final int MAX_RANKS = 4096;

  private HloImporter() {}

  /**
   * Whether a file's text is an HLO module (it starts with {@code HloModule}, after blanks and
   * comments); only the file's first bytes are read. An unreadable file is not one.
   */
  public static boolean isHlo(Path file) {
    byte[] head;
    try (InputStream in = Files.newInputStream(file)) {
      head = in.readNBytes(SNIFF_BYTES);
    } catch (IOException e) {
      return false;
    }
    return HloParser.looksLikeHlo(new String(head, StandardCharsets.UTF_8));
  }

  /** A program that runs on one rank (G_s): rank 0 of 1. */
  public static Graph importGraph(Path file) {
    SourceFile src = SourceFile.read(file, HLO);
    HloModule module = HloParser.parse(src);
    return new HloNodes(src, module, 0, 1, new LinkedHashMap<>()).build(graphName(file));
  }

  /**
   * A G_d: one SPMD program run on {@code ranks} ranks, or, for several files, rank K the K-th
   * file's program ({@code ranks} then the number of files).
   */
  public static DistributedGraph importRanks(List<Path> files, int ranks) {
    if (files.isEmpty() || ranks < 1) {
      throw new InputException(
          "give one HLO module and --ranks N (N at least 1), or one module per rank.");
    }
    if (ranks > MAX_RANKS) {
      throw new InputException(
          "--ranks "
              + ranks
              + ": at most "
              + MAX_RANKS
              + " ranks are supported; each rank is a copy of the program.");
    }
    if (files.size() > 1 && ranks != files.size()) {
      throw new InputException(
          "--ranks "
              + ranks
              + " with "
              + files.size()
              + " HLO modules: give one SPMD module"
              + " and --ranks N, or one module per rank without --ranks.");
    }
    List<SourceFile> sources = new ArrayList<>();
    List<HloModule> modules = new ArrayList<>();
    for (Path f : files) {
      SourceFile src = SourceFile.read(f, HLO);
      sources.add(src);
      modules.add(HloParser.parse(src));
    }
    return build(files, sources, modules, ranks);
  }

  /**
   * A G_d of one SPMD module run on {@code ranks} ranks or, when null, on as many devices as its
   * header says ({@code num_partitions} or {@code replica_count}); a header that names no more than
   * one device asks for the count.
   */
  public static DistributedGraph importSpmd(Path file, Integer ranks) {
    if (ranks != null) {
      return importRanks(List.of(file), ranks);
    }
    SourceFile src = SourceFile.read(file, HLO);
    HloModule module = HloParser.parse(src);
    long devices = devices(src, module);
    if (devices < 2) {
      throw src.error(
          1,
          "the module does not say how many ranks it runs on (its header has no num_partitions or"
              + " replica_count above 1)",
          "Give the number of ranks with --ranks N.");
    }
    if (devices > MAX_RANKS) {
      throw src.error(
          1,
          "the module runs on " + devices + " devices",
          "At most " + MAX_RANKS + " are supported.");
    }
    return build(List.of(file), List.of(src), List.of(module), (int) devices);
  }

  private static DistributedGraph build(
      List<Path> files, List<SourceFile> sources, List<HloModule> modules, int ranks) {
    Map<String, List<Integer>> groups = new LinkedHashMap<>();
    List<Graph> graphs = new ArrayList<>();
    for (int k = 0; k < modules.size(); k++) {
      checkDevices(sources.get(k), modules.get(k), files.size() == 1 ? ranks : 1);
    }
    for (int r = 0; r < ranks; r++) {
      int k = files.size() == 1 ? 0 : r;
      graphs.add(
          new HloNodes(sources.get(k), modules.get(k), r, ranks, groups)
              .build(graphName(files.get(k)) + (files.size() == 1 ? ".r" + r : "")));
    }
    List<String> names = files.stream().map(Path::toString).toList();
    String source = String.join(", ", names) + (files.size() == 1 ? " (" + ranks + " ranks)" : "");
    return new DistributedGraph(ranks, groups, graphs, source);
  }

  /**
   * The header's {@code replica_count} and {@code num_partitions}, where given, must fit the ranks:
   * ids in replica groups are ranks only when one of them is 1 and the other the number of ranks
   * each module runs on.
   */
  private static void checkDevices(SourceFile src, HloModule module, int ranks) {
    long devices = devices(src, module);
    if (devices > 1 && devices != ranks) {
      throw src.error(
          1,
          "the module runs on "
              + devices
              + " devices but is imported as "
              + ranks
              + " rank"
              + (ranks == 1 ? "" : "s"),
          "Import it with --ranks " + devices + ".");
    }
  }

  /**
   * The devices the header says the module runs on ({@code replica_count} or {@code
   * num_partitions}; 1 when it names neither). Both above 1 is refused: replica-group ids are ranks
   * only when one of them is 1.
   */
  private static long devices(SourceFile src, HloModule module) {
    long replicas = headerCount(src, module, "replica_count");
    long partitions = headerCount(src, module, "num_partitions");
    if (replicas > 1 && partitions > 1) {
      throw src.error(
          1,
          "the module runs on "
              + replicas
              + " replicas of "
              + partitions
              + " partitions each, which is not supported",
          "The importer reads programs of one partition per replica or one replica per partition,"
              + " where replica-group ids are ranks.");
    }
    return Math.max(replicas, partitions);
  }

  private static long headerCount(SourceFile src, HloModule module, String key) {
    String v = module.attributes().get(key);
    if (v == null) {
      return 1;
    }
    long n = HloScanner.parseNatural(v.strip(), Integer.MAX_VALUE);
    if (v.isBlank() || n < 1) {
      throw src.error(1, "the module's `" + key + "` is not a positive number", HloParser.ADVICE);
    }
    return n;
  }

  private static String graphName(Path file) {
    Path fileName = file.getFileName();
    String name = fileName == null ? file.toString() : fileName.toString();
    for (String ext : List.of(".hlo.txt", ".hlo", ".txt")) {
      if (name.endsWith(ext)) {
        return name.substring(0, name.length() - ext.length());
      }
    }
    return name;
  }
}
