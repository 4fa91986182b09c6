package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;

/**
 * {@code x = reshape(flatten(x), shape(x))}, built toward flattenings that are also a concat of G_d
 * values (the flat buffer of ZeRO or FSDP, whose shards are the ranks' tensors): the tensor is then
 * the reshape of that concat, an expression over the shards. Other reshapes are left alone, since
 * undoing each would double them.
 */
final class ReshapeBack implements NativeRule<EqualsNode> {
  static final String NAME = "reshape-back";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a tensor is the reshape back of its flattening, toward flattenings that are a concat of G_d values";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<EqualsNode> found) {
    for (int c : g.classesWithOp(Op.RESHAPE.id())) {
      deadline.poll();
      if (!holdsConcatOfValues(g, c)) {
        continue;
      }
      for (ENode r : g.nodes(c)) {
        if (r.op() != Op.RESHAPE.id() || r.attrs().length != 1) {
          continue;
        }
        int x = g.find(r.child(0));
        long[] shape = g.data(x).shape();
        int whole = g.find(c);
        if (g.lookup(new ENode(Op.RESHAPE.id(), shape, new int[] {whole})) < 0) {
          found.match(new EqualsNode(x, Op.RESHAPE.id(), shape, new int[] {whole}));
        }
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, EqualsNode match, Unions unions) {
    match.apply(g, unions);
  }

  /** Whether the class holds a concat of G_d values (every part's class holds a G_d tensor). */
  private static boolean holdsConcatOfValues(EGraph<TypeInfo> g, int cls) {
    for (ENode n : g.nodes(cls)) {
      if (n.op() == Op.CONCAT.id()) {
        boolean values = true;
        for (int i = 0; i < n.arity() && values; i++) {
          values = g.holds(n.child(i), Op.TENSOR.id());
        }
        if (values) {
          return true;
        }
      }
    }
    return false;
  }
}
