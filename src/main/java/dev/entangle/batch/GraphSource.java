package dev.entangle.batch;

import dev.entangle.check.GraphFiles;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.importer.GraphCodeImporter;
import dev.entangle.importer.ImportOptions;
import dev.entangle.importer.hlo.HloImporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Where one side of a case comes from: a graph file, or files to import as {@code entangle import}
 * does.
 */
public sealed interface GraphSource {

  /** The side as G_s (one graph). */
  Graph graph();

  /** The side as G_d (a plain graph is a one-rank G_d). */
  DistributedGraph distributed();

  /** The files it reads, for messages. */
  List<Path> files();

  /**
   * A graph file or G_d file in the JSON formats, or an XLA HLO text module (a G_d one run on as
   * many ranks as its header says), as {@code entangle check} reads them.
   */
  record GraphFile(Path file) implements GraphSource {
    @Override
    public Graph graph() {
      return GraphFiles.graph(file);
    }

    @Override
    public DistributedGraph distributed() {
      return GraphFiles.distributed(file, null);
    }

    @Override
    public List<Path> files() {
      return List.of(file);
    }
  }

  /**
   * Printed torch.fx code (one file per rank) or XLA HLO text, imported in memory.
   *
   * @param files the files, rank 0's first
   * @param hlo true for HLO text, false for printed torch.fx code, null to tell by the first file
   * @param ranks HLO only: the ranks one SPMD program runs on, or null
   * @param groups torch.fx only: process groups' member ranks
   * @param constants torch.fx only: values of 0-d tensor constants the code does not show
   * @param schemas torch.fx only: files of extra custom operator schemas
   */
  record Imported(
      List<Path> files,
      Boolean hlo,
      Integer ranks,
      Map<String, List<Integer>> groups,
      Map<String, Double> constants,
      List<Path> schemas)
      implements GraphSource {
    public Imported {
      files = List.copyOf(files);
      schemas = List.copyOf(schemas);
    }

    @Override
    public Graph graph() {
      if (isHlo()) {
        return files.size() == 1 && ranks == null
            ? HloImporter.importGraph(files.get(0))
            : HloImporter.importRanks(files, ranks == null ? files.size() : ranks).rank(0);
      }
      return files.size() == 1
          ? GraphCodeImporter.importGraph(files.get(0), options())
          : GraphCodeImporter.importRanks(files, options()).rank(0);
    }

    @Override
    public DistributedGraph distributed() {
      if (isHlo()) {
        return HloImporter.importRanks(files, ranks == null ? files.size() : ranks);
      }
      return GraphCodeImporter.importRanks(files, options());
    }

    private ImportOptions options() {
      return new ImportOptions(groups, constants, schemas);
    }

    private boolean isHlo() {
      if (hlo != null) {
        return hlo;
      }
      Path first = files.get(0);
      return Files.isRegularFile(first) && HloImporter.isHlo(first);
    }
  }
}
