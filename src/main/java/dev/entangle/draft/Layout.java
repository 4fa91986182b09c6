package dev.entangle.draft;

import java.util.ArrayList;
import java.util.List;

/** How a G_s input lies across the G_d ranks, as a relation entry says it. */
public sealed interface Layout {

  /** Every rank holds the whole tensor, named {@code gdName} there. */
  record Replicate(String gdName) implements Layout {}

  /** The ranks' tensors {@code gdName}, concatenated in rank order along {@code dim}. */
  record Shard(String gdName, int dim) implements Layout {}

  /**
   * A fused tensor whose blocks along {@code dim} are each sharded across the ranks: block i is the
   * concatenation of every rank's slice {@code [rankCuts[i], rankCuts[i + 1])}.
   */
  record Blocks(String gdName, int dim, int ranks, List<Long> rankCuts) implements Layout {
    public Blocks {
      rankCuts = List.copyOf(rankCuts);
    }

    /** The relation expression. */
    public String expression() {
      List<String> blocks = new ArrayList<>();
      for (int i = 0; i + 1 < rankCuts.size(); i++) {
        List<String> parts = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
          parts.add(
              "slice(r"
                  + r
                  + "."
                  + Names.ref(gdName)
                  + ", dim="
                  + dim
                  + ", start="
                  + rankCuts.get(i)
                  + ", end="
                  + rankCuts.get(i + 1)
                  + ")");
        }
        blocks.add("concat(" + String.join(", ", parts) + ", dim=" + dim + ")");
      }
      return "concat(" + String.join(", ", blocks) + ", dim=" + dim + ")";
    }
  }

  /** Any other clean expression over G_d tensors. */
  record Expression(String gd) implements Layout {}
}
