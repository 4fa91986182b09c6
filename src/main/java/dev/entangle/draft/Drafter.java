package dev.entangle.draft;

import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.Dtype;
import dev.entangle.core.OpTable;
import dev.entangle.core.ValueKind;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.lower.Lowering;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Drafts an input relation from the graphs: each G_s input is matched with the G_d input of the
 * same name, or tag, on every rank; equal shapes on every rank make it replicated, shapes adding up
 * along one dim (the others equal) sharded on that dim in rank order, and when the uses of G_s and
 * of every rank slice it into the same blocks (each block's size split evenly across the ranks), a
 * fused tensor whose blocks are each sharded. On one rank, inputs {@code NAME_0}, {@code NAME_1},
 * ... adding up to G_s's {@code NAME} are micro-batches concatenated in order. Anything else is
 * left undecided, with the entries that would fit its type.
 */
public final class Drafter {
  private final CoreProgram gs;
  private final CoreProgram gd;
  private final int world;
  private final Map<Integer, Map<Integer, TreeSet<Long>>> gsCuts;
  private final Map<Integer, Map<Integer, TreeSet<Long>>> gdCuts;
  private final Set<Integer> used = new HashSet<>();

  private Drafter(CoreProgram gs, CoreProgram gd) {
    this.gs = gs;
    this.gd = gd;
    this.world = gd.worldSize();
    this.gsCuts = SliceCuts.of(gs, ids(inputs(gs)));
    this.gdCuts = SliceCuts.of(gd, ids(inputs(gd)));
  }

  /**
   * Drafts the relation between two graphs (both lowered; a graph that does not lower is an input
   * error).
   */
  public static Draft draft(Graph gs, DistributedGraph gd) {
    OpTable table = new OpTable();
    return new Drafter(Lowering.sequential(gs, table), Lowering.distributed(gd, table)).run();
  }

  private Draft run() {
    List<Proposal> proposals = new ArrayList<>();
    List<Undecided> undecided = new ArrayList<>();
    for (CoreValue s : inputs(gs)) {
      Object r = decide(s);
      if (r instanceof Proposal p) {
        proposals.add(p);
      } else {
        undecided.add((Undecided) r);
      }
    }
    List<String> unrelated = new ArrayList<>();
    for (CoreValue v : inputs(gd)) {
      if (!used.contains(v.id())) {
        unrelated.add(v.label());
      }
    }
    return new Draft(world, proposals, undecided, unrelated);
  }

  /** A proposal or an undecided input. */
  private Object decide(CoreValue s) {
    int[] byName = onEveryRank(s.name(), false);
    int[] byTag = s.tag() == null ? null : onEveryRank(s.tag(), true);
    boolean tagFirst = byTag != null && !Names.generated(s.tag());
    int[] match = tagFirst ? byTag : byName != null ? byName : byTag;
    if (match == null) {
      Proposal micro = microBatches(s);
      if (micro != null) {
        return micro;
      }
      return undecided(s, noMatch(s));
    }
    boolean byTagOnly = match == byTag && (byName == null || !Arrays.equals(byName, byTag));
    boolean conflict = byTagOnly && byName != null;
    String via = match == byTag ? (byName != null && !conflict ? "name and tag" : "tag") : "name";
    String label = label(s, match);
    String gdName = match == byName && label.equals(s.name()) ? s.name() : label;
    boolean generated = Names.generated(match == byTag ? s.tag() : s.name());
    long[] shape = s.type().shape();
    List<long[]> shapes = new ArrayList<>();
    for (int id : match) {
      CoreValue v = gd.value(id);
      if (v.type().dtype() != s.type().dtype()) {
        return undecided(
            s,
            "G_d's "
                + v.label()
                + " has dtype "
                + Dtype.name(v.type().dtype())
                + ", G_s's "
                + Dtype.name(s.type().dtype())
                + ": not the same tensor, or a cast the relation cannot say.");
      }
      shapes.add(v.type().shape());
    }
    String matched =
        "matched by "
            + via
            + (generated ? " (a generated name: inputs in the same order?)" : "")
            + (conflict ? " (its name names other G_d inputs)" : "");
    Confidence sure = generated || conflict ? Confidence.MEDIUM : Confidence.HIGH;
    if (shapes.stream().allMatch(x -> Arrays.equals(x, shape))) {
      use(match);
      return new Proposal(
          label,
          new Layout.Replicate(gdName),
          sure,
          matched + "; every rank holds the whole " + s.type() + ".");
    }
    int dim = shardDim(shape, shapes);
    if (dim < 0) {
      return undecided(
          s,
          "its shape "
              + Arrays.toString(shape)
              + " is neither every rank's ("
              + shapesText(match)
              + ") nor their concatenation along one dim.");
    }
    use(match);
    return sharded(s, label, gdName, match, shapes, dim, sure, matched);
  }

  private Object sharded(
      CoreValue s,
      String label,
      String gdName,
      int[] match,
      List<long[]> shapes,
      int dim,
      Confidence sure,
      String matched) {
    List<Long> blocks = blocks(cuts(gsCuts, s.id(), dim), s.type().shape()[dim]);
    String shard =
        matched
            + "; the ranks' "
            + shapesText(match)
            + " add up to "
            + s.type()
            + " along dim "
            + dim;
    if (blocks.size() < 2) {
      return new Proposal(label, new Layout.Shard(gdName, dim), sure, shard + ".");
    }
    List<Long> expected = rankCuts(blocks, shapes, dim);
    List<Long> gsBounds = bounds(blocks);
    if (expected != null && everyRankCutsAt(match, dim, expected)) {
      boolean exact = true;
      for (int id : match) {
        exact &=
            cuts(gdCuts, id, dim).equals(new TreeSet<>(expected.subList(1, expected.size() - 1)));
      }
      return new Proposal(
          label,
          new Layout.Blocks(gdName, dim, world, expected),
          exact ? sure : Confidence.MEDIUM,
          matched
              + "; a fused tensor: G_s's uses slice dim "
              + dim
              + " into blocks at "
              + gsBounds
              + ", every rank's at "
              + expected
              + (exact ? "" : " (and elsewhere)")
              + ", so each block is sharded across the ranks.");
    }
    List<String> options = new ArrayList<>();
    options.add("{\"gs\": \"" + label + "\", \"shard\": " + dim + "}");
    if (expected != null) {
      options.add(
          "{\"gs\": \""
              + label
              + "\", \"gd\": \""
              + new Layout.Blocks(gdName, dim, world, expected).expression()
              + "\"}");
    }
    return undecided(
        s,
        shard
            + ", but G_s's uses slice it into blocks at "
            + gsBounds
            + " and the ranks' uses do not slice their parts into matching blocks ("
            + rankCutsText(match, dim)
            + "): a plain shard, or each block sharded?",
        options);
  }

  /** The ranks' shared block bounds when every G_s block splits evenly across them, else null. */
  private List<Long> rankCuts(List<Long> blocks, List<long[]> shapes, int dim) {
    long part = shapes.get(0)[dim];
    for (long[] sh : shapes) {
      if (sh[dim] != part) {
        return null;
      }
    }
    List<Long> out = new ArrayList<>();
    long at = 0;
    out.add(0L);
    for (long b : blocks) {
      if (b % world != 0) {
        return null;
      }
      at += b / world;
      out.add(at);
    }
    return at == part ? out : null;
  }

  private boolean everyRankCutsAt(int[] match, int dim, List<Long> expected) {
    for (int id : match) {
      TreeSet<Long> c = cuts(gdCuts, id, dim);
      for (int i = 1; i + 1 < expected.size(); i++) {
        if (!c.contains(expected.get(i))) {
          return false;
        }
      }
    }
    return true;
  }

  /** The sizes of the blocks the cut points make of a dim of size {@code n}. */
  private static List<Long> blocks(TreeSet<Long> cuts, long n) {
    List<Long> out = new ArrayList<>();
    long at = 0;
    for (long c : cuts) {
      out.add(c - at);
      at = c;
    }
    out.add(n - at);
    return out;
  }

  private static List<Long> bounds(List<Long> blocks) {
    List<Long> out = new ArrayList<>();
    long at = 0;
    out.add(0L);
    for (long b : blocks) {
      at += b;
      out.add(at);
    }
    return out;
  }

  /** Interior cut points of a value's dim (0 and the size left out). */
  private TreeSet<Long> cuts(Map<Integer, Map<Integer, TreeSet<Long>>> all, int value, int dim) {
    CoreProgram p = all == gsCuts ? gs : gd;
    long n = p.value(value).type().shape()[dim];
    TreeSet<Long> out = new TreeSet<>();
    Map<Integer, TreeSet<Long>> byDim = all.get(value);
    if (byDim != null && byDim.get(dim) != null) {
      for (long c : byDim.get(dim)) {
        if (c > 0 && c < n) {
          out.add(c);
        }
      }
    }
    return out;
  }

  private String rankCutsText(int[] match, int dim) {
    List<String> parts = new ArrayList<>();
    for (int id : match) {
      TreeSet<Long> c = cuts(gdCuts, id, dim);
      parts.add(gd.value(id).label() + (c.isEmpty() ? " not sliced" : " at " + c));
    }
    return String.join(", ", parts);
  }

  /** The dim along which the ranks' shapes add up to G_s's (all other dims equal), or -1. */
  private static int shardDim(long[] shape, List<long[]> shapes) {
    int dim = -1;
    for (long[] sh : shapes) {
      if (sh.length != shape.length) {
        return -1;
      }
      for (int d = 0; d < shape.length; d++) {
        if (sh[d] != shape[d]) {
          if (dim >= 0 && dim != d) {
            return -1;
          }
          dim = d;
        }
      }
    }
    if (dim < 0) {
      return -1;
    }
    long sum = 0;
    for (long[] sh : shapes) {
      sum += sh[dim];
    }
    return sum == shape[dim] ? dim : -1;
  }

  /**
   * On one rank, inputs {@code NAME_0, NAME_1, ...} whose shapes add up along one dim to G_s's
   * {@code NAME}: micro-batches, concatenated in order.
   */
  private Proposal microBatches(CoreValue s) {
    if (world != 1) {
      return null;
    }
    List<Integer> parts = new ArrayList<>();
    for (int i = 0; ; i++) {
      int id = gd.id(0, s.name() + "_" + i);
      if (id < 0 || gd.value(id).kind() != ValueKind.INPUT || used.contains(id)) {
        break;
      }
      parts.add(id);
    }
    if (parts.size() < 2) {
      return null;
    }
    List<long[]> shapes = new ArrayList<>();
    for (int id : parts) {
      if (gd.value(id).type().dtype() != s.type().dtype()) {
        return null;
      }
      shapes.add(gd.value(id).type().shape());
    }
    int dim = shardDim(s.type().shape(), shapes);
    if (dim < 0) {
      return null;
    }
    List<String> refs = new ArrayList<>();
    for (int id : parts) {
      refs.add("r0." + Names.ref(gd.value(id).name()));
      used.add(id);
    }
    return new Proposal(
        s.tag() != null ? s.tag() : s.name(),
        new Layout.Expression("concat(" + String.join(", ", refs) + ", dim=" + dim + ")"),
        Confidence.MEDIUM,
        "micro-batches by name: "
            + String.join(", ", refs)
            + " add up to "
            + s.type()
            + " along dim "
            + dim
            + ", concatenated in name order.");
  }

  /** The value named (or, with {@code tags}, tagged) so on every rank, all inputs; else null. */
  private int[] onEveryRank(String name, boolean tags) {
    int[] ids = new int[world];
    for (int r = 0; r < world; r++) {
      int id = tags ? gd.resolve(r, name) : gd.id(r, name);
      if (id < 0 || gd.value(id).kind() != ValueKind.INPUT) {
        return null;
      }
      ids[r] = id;
    }
    return ids;
  }

  /** The name the entry gives: G_s's tag when the G_d side resolves it to the same inputs. */
  private String label(CoreValue s, int[] match) {
    if (s.tag() == null || gs.resolve(-1, s.tag()) != s.id()) {
      return s.name();
    }
    for (int r = 0; r < world; r++) {
      if (gd.resolve(r, s.tag()) != match[r]) {
        return s.name();
      }
    }
    return s.tag();
  }

  private String noMatch(CoreValue s) {
    List<Integer> some = new ArrayList<>();
    for (int r = 0; r < world; r++) {
      int id = gd.resolve(r, s.name());
      if (id < 0 && s.tag() != null) {
        id = gd.resolve(r, s.tag());
      }
      if (id >= 0 && gd.value(id).kind() == ValueKind.INPUT) {
        some.add(r);
      }
    }
    if (!some.isEmpty()) {
      return "G_d has an input of its name on rank(s) " + some + " only.";
    }
    return "no G_d input has its name" + (s.tag() == null ? "" : " or tag") + ".";
  }

  private Undecided undecided(CoreValue s, String why) {
    return undecided(s, why, candidates(s));
  }

  private Undecided undecided(CoreValue s, String why, List<String> candidates) {
    return new Undecided(
        s.tag() != null ? s.tag() : s.name(), String.valueOf(s.type()), why, candidates);
  }

  /** G_d inputs not yet related whose type fits: the same, or smaller along one dim. */
  private List<String> candidates(CoreValue s) {
    List<String> out = new ArrayList<>();
    long[] shape = s.type().shape();
    for (CoreValue v : inputs(gd)) {
      if (used.contains(v.id()) || v.type().dtype() != s.type().dtype()) {
        continue;
      }
      long[] sh = v.type().shape();
      if (sh == null || shape == null || sh.length != shape.length) {
        continue;
      }
      int differ = 0;
      boolean smaller = true;
      for (int d = 0; d < sh.length; d++) {
        if (sh[d] != shape[d]) {
          differ++;
          smaller &= sh[d] < shape[d];
        }
      }
      if (differ == 0 || (differ == 1 && smaller)) {
        out.add(v.label() + " " + v.type());
      }
    }
    return out;
  }

  private String shapesText(int[] ids) {
    List<String> out = new ArrayList<>();
    for (int id : ids) {
      out.add(gd.value(id).label() + " " + Arrays.toString(gd.value(id).type().shape()));
    }
    return String.join(", ", out);
  }

  private void use(int[] ids) {
    for (int id : ids) {
      used.add(id);
    }
  }

  private static List<CoreValue> inputs(CoreProgram p) {
    return p.values().stream()
        .filter(v -> v.kind() == ValueKind.INPUT && v.type() != null && !v.type().isTuple())
        .toList();
  }

  private static Set<Integer> ids(List<CoreValue> values) {
    Set<Integer> out = new HashSet<>();
    values.forEach(v -> out.add(v.id()));
    return out;
  }
}
