package dev.entangle.importer.pt2;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * {@code entangle import} of torch.export archives ({@code .pt2}, written by {@code
 * torch.export.save}): one archive gives a graph (G_s), several give a distributed graph whose rank
 * K is the K-th archive.
 */
public final class Pt2Importer {
  private static final byte[] ZIP_MAGIC = {'P', 'K', 3, 4};

  private Pt2Importer() {}

  /** Whether {@code file} is a zip archive (as every {@code .pt2} archive is). */
  public static boolean isArchive(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      return Arrays.equals(in.readNBytes(ZIP_MAGIC.length), ZIP_MAGIC);
    } catch (IOException e) {
      return false;
    }
  }

  /** The program of one archive as a graph named after the file. */
  public static Graph importGraph(Path file) {
    return Pt2GraphReader.read(Pt2Archive.open(file), graphName(file));
  }

  /**
   * One archive per rank, rank 0's first, as a distributed graph.
   *
   * @param groups the process groups the collectives name (group name to member ranks); a group not
   *     listed means all ranks
   */
  public static DistributedGraph importRanks(List<Path> files, Map<String, List<Integer>> groups) {
    if (files.isEmpty()) {
      throw new InputException("no .pt2 archives given: give one per rank, rank 0's first.");
    }
    for (Map.Entry<String, List<Integer>> g : groups.entrySet()) {
      for (int r : g.getValue()) {
        if (r < 0 || r >= files.size()) {
          throw new InputException(
              "--group "
                  + g.getKey()
                  + " names rank "
                  + r
                  + ", but "
                  + files.size()
                  + " archives give ranks 0 to "
                  + (files.size() - 1)
                  + "; give one archive per rank.");
        }
      }
    }
    List<Graph> ranks = new ArrayList<>();
    for (Path f : files) {
      ranks.add(importGraph(f));
    }
    String source = String.join(", ", files.stream().map(Path::toString).toList());
    return new DistributedGraph(files.size(), groups, ranks, source);
  }

  private static String graphName(Path file) {
    Path fileName = file.getFileName();
    String name = fileName == null ? file.toString() : fileName.toString();
    return name.endsWith(".pt2") ? name.substring(0, name.length() - 4) : name;
  }
}
