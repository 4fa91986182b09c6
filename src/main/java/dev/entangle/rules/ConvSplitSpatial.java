package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.ArrayList;
import java.util.List;

/**
 * A convolution of an input split along a spatial dim, whose output is as long as its input along
 * that dim (stride 1, {@code 2·pad = dilation·(kernel - 1)}), is the concat of each part's
 * convolution with a halo: the part with the {@code pad} elements before it and after it (the
 * neighbouring parts' edges, zeros past the ends) convolved without padding along that dim. This is
 * spatial or context parallelism of a convolution (an audio or Mamba convolution over a time axis
 * split across ranks), where each rank receives its neighbours' edges. The halos are written as
 * slices of the whole input, which the layout laws take to the parts' slices.
 */
final class ConvSplitSpatial implements NativeRule<ConvSplitSpatial.Split> {
  static final String NAME = "conv-split-spatial";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a same-length convolution of an input split along a spatial dim is the concat of each"
        + " part's convolution with its neighbours' edges as halo";
  }

  /**
   * A convolution whose input holds a concat along spatial dim {@code dim} (2 for the first).
   *
   * @param conv the convolution's class
   * @param node the convolution node
   * @param input the input's class
   * @param dim the split dim
   * @param sizes the parts' sizes along it
   */
  record Split(int conv, ENode node, int input, int dim, long[] sizes) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Split> found) {
    for (EGraph.Held held : g.nodesWithOp(Op.CONV.id())) {
      deadline.poll();
      ENode conv = held.node();
      int d = (int) conv.attr(1);
      int input = g.find(conv.child(0));
      long[] kernel = g.data(conv.child(1)).shape();
      for (ENode cat : g.nodes(input)) {
        if (cat.op() != Op.CONCAT.id() || cat.arity() < 2) {
          continue;
        }
        int dim = (int) cat.attr(0);
        int i = dim - 2;
        if (i < 0 || i >= d || kernel == null || kernel.length != d + 2) {
          continue;
        }
        long stride = conv.attr(2 + i);
        long pad = conv.attr(2 + d + i);
        long dilation = conv.attr(2 + 2 * d + i);
        if (stride != 1 || pad < 1 || 2 * pad != dilation * (kernel[2 + i] - 1)) {
          continue;
        }
        long[] sizes = new long[cat.arity()];
        for (int k = 0; k < sizes.length; k++) {
          sizes[k] = g.data(cat.child(k)).shape()[dim];
        }
        found.match(new Split(g.find(held.cls()), conv, input, dim, sizes));
        break;
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Split m, Unions unions) {
    TypeInfo in = g.data(m.input());
    long[] shape = in.shape();
    int dim = m.dim();
    int d = (int) m.node().attr(1);
    int i = dim - 2;
    long pad = m.node().attr(2 + d + i);
    long total = shape[dim];
    long[] attrs = m.node().attrs().clone();
    attrs[2 + d + i] = 0;
    int[] outs = new int[m.sizes().length];
    long offset = 0;
    for (int k = 0; k < outs.length; k++) {
      long from = offset - pad;
      long to = offset + m.sizes()[k] + pad;
      List<Integer> pieces = new ArrayList<>();
      zeros(g, in, dim, Math.max(0, -from), pieces);
      long lo = Math.max(0, from);
      long hi = Math.min(total, to);
      pieces.add(
          g.add(new ENode(Op.SLICE.id(), new long[] {dim, lo, hi, 1}, new int[] {m.input()})));
      zeros(g, in, dim, Math.max(0, to - total), pieces);
      int window =
          pieces.size() == 1
              ? pieces.get(0)
              : g.add(
                  new ENode(
                      Op.CONCAT.id(),
                      new long[] {dim},
                      pieces.stream().mapToInt(Integer::intValue).toArray()));
      outs[k] =
          g.add(new ENode(Op.CONV.id(), attrs, new int[] {window, g.find(m.node().child(1))}));
      offset += m.sizes()[k];
    }
    unions.union(m.conv(), g.add(new ENode(Op.CONCAT.id(), new long[] {dim}, outs)));
  }

  /** Appends zeros of the input's shape but {@code n} long along {@code dim}, when n > 0. */
  private static void zeros(EGraph<TypeInfo> g, TypeInfo in, int dim, long n, List<Integer> out) {
    if (n <= 0) {
      return;
    }
    long[] shape = in.shape().clone(); // the type's own array
    shape[dim] = n;
    out.add(ConstantNodes.filled(g, 0.0, in.dtype(), shape));
  }
}
