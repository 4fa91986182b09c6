package dev.entangle.lower.collectives;

import dev.entangle.graph.Arg;
import dev.entangle.graph.Node;
import java.util.List;
import java.util.Locale;

/**
 * One collective call on one rank, read from a functional collective node ({@code
 * _c10d_functional.*}, {@code c10d_functional.*}, {@code vllm.all_reduce}).
 *
 * @param kind what it computes
 * @param reduceOp for reductions: sum, avg, max or min; else null
 * @param group the group name as written (null: all ranks)
 * @param rank the rank it runs on
 * @param node the node
 * @param input the name of the tensor it sends
 * @param src for broadcast: the source rank; else -1
 * @param outputSplits for all_to_all_single: output split sizes (empty: equal)
 * @param inputSplits for all_to_all_single: input split sizes (empty: equal)
 */
public record Collective(
    Kind kind,
    String reduceOp,
    String group,
    int rank,
    Node node,
    String input,
    long src,
    List<Long> outputSplits,
    List<Long> inputSplits) {

  /** The collectives the checker understands. */
  public enum Kind {
    ALL_REDUCE,
    ALL_GATHER,
    REDUCE_SCATTER,
    ALL_TO_ALL,
    BROADCAST
  }

  /** Whether the node is a {@code wait_tensor} (an identity on its argument). */
  public static boolean isWait(Node n) {
    String t = n.target();
    return t.equals("_c10d_functional.wait_tensor.default")
        || t.equals("c10d_functional.wait_tensor.default");
  }

  /** Whether the target names a collective of a known namespace (known kind or not). */
  public static boolean isCollectiveTarget(String t) {
    return t.startsWith("_c10d_functional.")
        || t.startsWith("c10d_functional.")
        || t.startsWith("vllm.all_reduce");
  }

  /**
   * Reads a collective node, or returns null when the node is not a collective. A collective of a
   * known namespace that cannot be read throws IllegalArgumentException with the reason.
   */
  public static Collective read(Node n, int rank) {
    String t = n.target();
    if (!isCollectiveTarget(t) || isWait(n)) {
      return null;
    }
    String op = t.substring(t.indexOf('.') + 1);
    op = op.substring(0, op.indexOf('.') < 0 ? op.length() : op.indexOf('.'));
    if (t.startsWith("vllm.")) {
      return plain(Kind.ALL_REDUCE, "sum", str(n, 1, "group_name"), rank, n);
    }
    switch (op) {
      case "all_reduce" -> {
        return plain(Kind.ALL_REDUCE, reduceOp(n, 1), str(n, 2, "group_name"), rank, n);
      }
      case "all_gather_into_tensor" -> {
        return plain(Kind.ALL_GATHER, null, str(n, 2, "group_name"), rank, n);
      }
      case "reduce_scatter_tensor" -> {
        return plain(Kind.REDUCE_SCATTER, reduceOp(n, 1), str(n, 3, "group_name"), rank, n);
      }
      case "all_to_all_single" -> {
        return new Collective(
            Kind.ALL_TO_ALL,
            null,
            str(n, 3, "group_name"),
            rank,
            n,
            ref(n, 0),
            -1,
            ints(n, 1, "output_split_sizes"),
            ints(n, 2, "input_split_sizes"));
      }
      case "broadcast" -> {
        Arg s = arg(n, 1, "src");
        if (!(s instanceof Arg.IntArg src)) {
          throw new IllegalArgumentException("broadcast needs an integer source rank");
        }
        return new Collective(
            Kind.BROADCAST,
            null,
            str(n, 2, "group_name"),
            rank,
            n,
            ref(n, 0),
            src.value(),
            List.of(),
            List.of());
      }
      default ->
          throw new IllegalArgumentException(
              "collective '"
                  + t
                  + "' is not supported; the checker knows all_reduce, all_gather_into_tensor, "
                  + "reduce_scatter_tensor, all_to_all_single, broadcast and wait_tensor");
    }
  }

  /**
   * The shape this collective's result must have, from its input's shape and the group size its
   * arguments state (all_gather and reduce_scatter carry it); null when it cannot be told here.
   */
  public long[] resultShape(long[] in) {
    if (kind == Kind.ALL_GATHER || kind == Kind.REDUCE_SCATTER) {
      Arg g = arg(node, kind == Kind.ALL_GATHER ? 1 : 2, "group_size");
      if (!(g instanceof Arg.IntArg size) || size.value() <= 0) {
        return null;
      }
      return resultShape(in, size.value());
    }
    return resultShape(in, 1);
  }

  /**
   * The shape this collective's result has over a group of {@code groupSize} ranks, from its
   * input's shape; null when it has none (a 0-d input to a collective that gathers, scatters or
   * exchanges rows, or rows that do not divide among the ranks).
   */
  public long[] resultShape(long[] in, long groupSize) {
    long[] out = in.clone();
    boolean rows =
        kind == Kind.ALL_GATHER || kind == Kind.REDUCE_SCATTER || kind == Kind.ALL_TO_ALL;
    if (rows && out.length == 0) {
      return null;
    }
    switch (kind) {
      case ALL_GATHER -> out[0] *= groupSize;
      case REDUCE_SCATTER -> {
        if (out[0] % groupSize != 0) {
          return null;
        }
        out[0] /= groupSize;
      }
      case ALL_TO_ALL -> {
        if (!outputSplits.isEmpty()) {
          out[0] = outputSplits.stream().mapToLong(Long::longValue).sum();
        }
      }
      default -> {}
    }
    return out;
  }

  /** A collective of no source rank and even splits. */
  private static Collective plain(Kind kind, String reduceOp, String group, int rank, Node n) {
    return new Collective(kind, reduceOp, group, rank, n, ref(n, 0), -1, List.of(), List.of());
  }

  private static Arg arg(Node n, int i, String key) {
    Arg a = n.arg(i);
    return a != null ? a : n.kwarg(key);
  }

  private static String ref(Node n, int i) {
    if (arg(n, i, "input") instanceof Arg.NodeRef r) {
      return r.name();
    }
    if (arg(n, i, "self") instanceof Arg.NodeRef r) {
      return r.name();
    }
    throw new IllegalArgumentException("its first argument must be a tensor");
  }

  private static String str(Node n, int i, String key) {
    Arg a = arg(n, i, key);
    if (a instanceof Arg.StrArg s) {
      return s.value();
    }
    if (a instanceof Arg.IntArg v) {
      return Long.toString(v.value());
    }
    return null;
  }

  private static String reduceOp(Node n, int i) {
    String s = str(n, i, "reduce_op");
    if (s == null) {
      throw new IllegalArgumentException("its reduce_op argument is missing");
    }
    s = s.toLowerCase(Locale.ROOT);
    if (!List.of("sum", "avg", "max", "min").contains(s)) {
      throw new IllegalArgumentException(
          "reduce_op '" + s + "' is not supported (sum, avg, max, min)");
    }
    return s;
  }

  private static List<Long> ints(Node n, int i, String key) {
    Arg a = arg(n, i, key);
    if (a instanceof Arg.ListArg l) {
      return l.items().stream()
          .map(
              x -> {
                if (x instanceof Arg.IntArg v) {
                  return v.value();
                }
                throw new IllegalArgumentException("split sizes must be integers");
              })
          .toList();
    }
    return List.of();
  }
}
