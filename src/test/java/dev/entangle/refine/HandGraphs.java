package dev.entangle.refine;

import dev.entangle.cli.CliRun;
import dev.entangle.graph.FxJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Small graph, G_d and relation files written by hand for a check, in the contract's JSON. */
final class HandGraphs {
  private HandGraphs() {}

  /** A float32 placeholder of the given shape, e.g. {@code "[8, 4]"}. */
  static String input(String name, String shape) {
    return FxJson.input(name, shape, "float32");
  }

  /** A call with a float32 result of the given shape; {@code args} is a JSON list. */
  static String call(String name, String target, String args, String shape) {
    return FxJson.call(name, target, args, "{}", shape, "float32");
  }

  /** A node reference argument. */
  static String ref(String name) {
    return FxJson.ref(name);
  }

  /** A graph file of the nodes, returning the named nodes. */
  static String graph(List<String> nodes, String... outputs) {
    return FxJson.graph(nodes, outputs);
  }

  /** A G_d file of the ranks' graph files, all in process group {@code tp}. */
  static String distributed(List<String> ranks) {
    StringBuilder members = new StringBuilder();
    for (int r = 0; r < ranks.size(); r++) {
      members.append(r == 0 ? "" : ", ").append(r);
    }
    return "{\"format\": \"entangle-fx/1\", \"world_size\": "
        + ranks.size()
        + ", \"ranks\": ["
        + String.join(", ", ranks)
        + "], \"process_groups\": {\"tp\": ["
        + members
        + "]}}";
  }

  /**
   * Writes G_s, G_d (the ranks' graph files, all in group {@code tp}) and the relation entries (a
   * JSON list's items) into {@code dir}, and checks them.
   */
  static CliRun check(Path dir, String gs, List<String> ranks, String relations)
      throws IOException {
    Path gsFile = Files.writeString(dir.resolve("gs.json"), gs);
    Path gdFile = Files.writeString(dir.resolve("gd.json"), distributed(ranks));
    Path ri =
        Files.writeString(
            dir.resolve("ri.json"),
            "{\"format\": \"entangle-relation/1\", \"relations\": [" + relations + "]}");
    return CliRun.check(gsFile, gdFile, ri);
  }
}
