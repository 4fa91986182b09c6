package dev.entangle.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A G_s that is slow to read: a chain of negations of a small tensor, with a relation replicating
 * its input. At 200,000 links (32 MB) reading it takes well over half a second.
 */
final class ChainGraph {
  private ChainGraph() {}

  /** Writes {@code chain.json} and {@code ri.json} into {@code dir}; returns the graph's path. */
  static Path write(Path dir, int links) throws IOException {
    StringBuilder sb =
        new StringBuilder(
            "{\"format\": \"entangle-fx/1\", \"nodes\": [{\"name\": \"x\", \"op\": \"placeholder\","
                + " \"target\": \"x\", \"meta\": {\"shape\": [4], \"dtype\": \"float32\"}}");
    String prev = "x";
    for (int i = 0; i < links; i++) {
      sb.append(",\n{\"name\": \"n")
          .append(i)
          .append(
              "\", \"op\": \"call_function\", \"target\": \"aten.neg.default\", \"args\":"
                  + " [{\"node\": \"")
          .append(prev)
          .append("\"}], \"kwargs\": {}, \"meta\": {\"shape\": [4], \"dtype\": \"float32\"}}");
      prev = "n" + i;
    }
    sb.append(
            ",\n{\"name\": \"output\", \"op\": \"output\", \"target\": \"output\", \"args\":"
                + " [[{\"node\": \"")
        .append(prev)
        .append("\"}]]}]}");
    Files.writeString(
        dir.resolve("ri.json"),
        "{\"format\": \"entangle-relation/1\", \"relations\": [{\"gs\": \"x\", \"replicate\":"
            + " true}]}");
    return Files.writeString(dir.resolve("chain.json"), sb);
  }
}
