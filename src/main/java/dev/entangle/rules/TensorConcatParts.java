package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;

/**
 * A part of a concat in the class of a G_d tensor is the slice of that tensor it occupies: {@code T
 * = concat(a, b)} along d, {@code a} of size n along d, gives {@code a = slice(T, d, 0, n)}. A
 * block of G_s's value that a rank computes as part of its own tensor (the rows of one of the two
 * sequence chunks a load-balanced context-parallel rank holds) then has a clean expression though
 * no graph slices it. A part that holds a G_d tensor or a layout operator (which the layout laws
 * relate to the tensors it is built from), or this slice already, is left alone.
 */
final class TensorConcatParts implements NativeRule<TensorConcatParts.Part> {
  static final String NAME = "tensor-concat-parts";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a part of a concat that equals a G_d tensor is the slice of the tensor it occupies";
  }

  /** One part of a concat in a G_d tensor's class, and the range it occupies along {@code dim}. */
  record Part(int tensor, int part, long dim, long start, long end) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Part> found) {
    for (int c : g.classesWithOp(Op.TENSOR.id())) {
      deadline.poll();
      int t = g.find(c);
      for (ENode cat : g.nodes(t, Op.CONCAT.id()).list()) {
        int d = (int) cat.attr(0);
        long offset = 0;
        for (int k = 0; k < cat.arity(); k++) {
          int part = g.find(cat.child(k));
          long size = g.data(part).shape()[d];
          if (size > 0 && !layoutOrTensor(g, part) && !slices(g, part, t, d, offset)) {
            found.match(new Part(t, part, d, offset, offset + size));
          }
          offset += size;
        }
      }
    }
  }

  /** A G_d tensor and the layout operators: what a clean expression is built of. */
  private static final Op[] CLEAN = {
    Op.TENSOR, Op.SLICE, Op.CONCAT, Op.RESHAPE, Op.PERMUTE, Op.EXPAND
  };

  /**
   * Whether a class holds a G_d tensor or a layout operator: a part the layout laws already relate
   * to the tensors it is built from (a rank's rows viewed flat before a gather).
   */
  private static boolean layoutOrTensor(EGraph<TypeInfo> g, int cls) {
    for (Op op : CLEAN) {
      if (g.holds(cls, op.id())) {
        return true;
      }
    }
    return false;
  }

  /** Whether the part's class holds the slice of the tensor at this offset already. */
  private static boolean slices(EGraph<TypeInfo> g, int part, int tensor, int d, long offset) {
    for (ENode n : g.nodes(part, Op.SLICE.id()).list()) {
      if (g.find(n.child(0)) == tensor && n.attr(0) == d && n.attr(1) == offset) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Part m, Unions unions) {
    int slice =
        g.add(
            new ENode(
                Op.SLICE.id(),
                new long[] {m.dim(), m.start(), m.end(), 1},
                new int[] {g.find(m.tensor())}));
    unions.union(m.part(), slice);
  }
}
