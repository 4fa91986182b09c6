package dev.entangle.check;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.relation.RelationFile;
import dev.entangle.relation.RelationReader;
import java.io.File;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What one check reads: G_s, G_d and the input relation, parsed but not yet validated against each
 * other.
 *
 * @param gs the sequential model
 * @param gd the distributed implementation
 * @param relation the relation file, its sugar expanded for G_d's world size
 */
public record CheckInputs(Graph gs, DistributedGraph gd, RelationFile relation) {
  /** G_d files from this size on are read while another thread reads G_s. */
  static final long PARALLEL_BYTES = 4L << 20;

  /**
   * Reads the three files, G_d from a G_d file or an HLO module run on as many ranks as it says.
   */
  public static CheckInputs read(Path gs, Path gd, Path relation) {
    return read(gs, gd, relation, null);
  }

  /**
   * Reads the three files; the first bad one, in this order, is the error reported. G_s and G_d are
   * graph files or XLA HLO text modules; {@code ranks}, for a G_d given as an HLO module, is the
   * number of ranks it runs on (null: as many as its header says). A large G_d is read while G_s is
   * read on another thread.
   */
  public static CheckInputs read(Path gs, Path gd, Path relation, Integer ranks) {
    Graph g;
    DistributedGraph d;
    if (new File(gd.toString()).length() < PARALLEL_BYTES) {
      g = GraphFiles.graph(gs);
      d = GraphFiles.distributed(gd, ranks);
    } else {
      CompletableFuture<Graph> sequential =
          CompletableFuture.supplyAsync(() -> GraphFiles.graph(gs));
      try {
        d = GraphFiles.distributed(gd, ranks);
      } catch (RuntimeException e) {
        join(sequential); // a bad G_s is reported first
        throw e;
      }
      g = join(sequential);
    }
    return new CheckInputs(g, d, RelationReader.read(relation, d.worldSize()));
  }

  /** The result of {@code f}, or what it threw. */
  private static <T> T join(CompletableFuture<T> f) {
    try {
      return f.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
  }
}
