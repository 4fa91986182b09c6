package dev.entangle.lower.collectives;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.TermBuilder;
import dev.entangle.graph.Arg;
import dev.entangle.graph.Node;
import java.util.ArrayList;
import java.util.List;

/**
 * The value a collective leaves on one rank, as a term over what every member sent: all_reduce is
 * the element-wise reduction of all inputs (avg: the sum scaled by 1/n), all_gather the concat
 * along dim 0, reduce_scatter this member's dim-0 slice of the reduction, all_to_all_single the
 * concat of this member's chunk of every input, broadcast the source's input.
 */
public final class CollectiveLowering {
  private CollectiveLowering() {}

  /** Resolves a member's input tensor to a handle. */
  public interface Inputs {
    int of(int rank, String nodeName);
  }

  /**
   * In a graph of one rank (G_s), every collective is the identity on its input: a reduction, a
   * gather or a scatter over a group of one. Returns the input's name, or null when the node is not
   * a collective or a wait.
   */
  public static String singleRankInput(Node n) {
    if (Collective.isWait(n)) {
      return n.arg(0) instanceof Arg.NodeRef r ? r.name() : null;
    }
    if (!Collective.isCollectiveTarget(n.target())) {
      return null;
    }
    Collective c = Collective.read(n, 0);
    return c == null ? null : c.input();
  }

  /** The handle of the collective's result on {@code rank}. */
  public static int lower(CollectiveGroups.Instance inst, int rank, Inputs in, TermBuilder b) {
    List<Collective> ms = inst.members();
    int n = ms.size();
    int[] sent = sent(inst, in);
    Collective me = inst.on(rank);
    int k = inst.position(rank);
    switch (me.kind()) {
      case ALL_REDUCE:
        return reduce(me.reduceOp(), sent, b);
      case ALL_GATHER:
        return n == 1 ? sent[0] : b.add(Op.CONCAT, new long[] {0}, sent);
      case REDUCE_SCATTER:
        {
          int total = reduce(me.reduceOp(), sent, b);
          long rows = b.type(total).shape()[0];
          if (rows % n != 0) {
            throw new IllegalArgumentException(
                "reduce_scatter of " + rows + " rows over " + n + " ranks");
          }
          long m = rows / n;
          return n == 1 ? total : b.add(Op.SLICE, new long[] {0, k * m, (k + 1) * m, 1}, total);
        }
      case ALL_TO_ALL:
        {
          // the pieces each member sends this rank, those of no rows left out (a send to one
          // peer, written as an all-to-all with one non-zero split, receives that peer's piece)
          List<Integer> parts = new ArrayList<>();
          int empty = -1;
          for (int j = 0; j < n; j++) {
            long[] bounds = chunk(ms.get(j).inputSplits(), b.type(sent[j]).shape()[0], n, k);
            int part =
                bounds[0] == 0 && bounds[1] == b.type(sent[j]).shape()[0]
                    ? sent[j]
                    : b.add(Op.SLICE, new long[] {0, bounds[0], bounds[1], 1}, sent[j]);
            if (bounds[1] > bounds[0]) {
              parts.add(part);
            } else if (empty < 0) {
              empty = part;
            }
          }
          if (parts.isEmpty()) {
            return empty;
          }
          return parts.size() == 1
              ? parts.get(0)
              : b.add(
                  Op.CONCAT, new long[] {0}, parts.stream().mapToInt(Integer::intValue).toArray());
        }
      case BROADCAST:
        {
          int src = inst.ranks().indexOf((int) me.src());
          if (src < 0) {
            throw new IllegalArgumentException(
                "broadcast source rank " + me.src() + " is not in the group");
          }
          return sent[src];
        }
      default:
        throw new IllegalStateException(me.kind().toString());
    }
  }

  /** The element-wise reduction of what every member sent (for all_reduce and reduce_scatter). */
  public static int reduction(CollectiveGroups.Instance inst, Inputs in, TermBuilder b) {
    return reduce(inst.members().get(0).reduceOp(), sent(inst, in), b);
  }

  /** What each member sent, in member order. */
  private static int[] sent(CollectiveGroups.Instance inst, Inputs in) {
    List<Collective> ms = inst.members();
    int[] sent = new int[ms.size()];
    for (int i = 0; i < sent.length; i++) {
      sent[i] = in.of(ms.get(i).rank(), ms.get(i).input());
    }
    return sent;
  }

  private static int reduce(String op, int[] sent, TermBuilder b) {
    switch (op) {
      case "sum":
        return sent.length == 1 ? sent[0] : b.add(Op.SUMN, new long[0], sent);
      case "max":
        return sent.length == 1 ? sent[0] : b.add(Op.MAXN, new long[0], sent);
      case "min":
        return sent.length == 1 ? sent[0] : b.add(Op.MINN, new long[0], sent);
      case "avg":
        {
          int s = reduce("sum", sent, b);
          long[] shape = b.type(s).shape();
          int dt = b.type(s).dtype();
          int k =
              b.add(
                  Op.SCALAR,
                  new long[] {
                    Double.doubleToLongBits(1.0 / sent.length), dt < 0 ? Dtype.FLOAT32.code() : dt
                  });
          int e = shape.length == 0 ? k : b.add(Op.EXPAND, shape, k);
          return b.add(Op.MUL, new long[0], s, e);
        }
      default:
        throw new IllegalArgumentException("reduce op " + op);
    }
  }

  /** Rows [start, end) of input chunk k, by split sizes or equal chunks. */
  private static long[] chunk(List<Long> splits, long rows, int n, int k) {
    if (splits.isEmpty()) {
      long m = rows / n;
      return new long[] {k * m, (k + 1) * m};
    }
    long off = 0;
    for (int i = 0; i < k; i++) {
      off += splits.get(i);
    }
    return new long[] {off, off + splits.get(k)};
  }
}
