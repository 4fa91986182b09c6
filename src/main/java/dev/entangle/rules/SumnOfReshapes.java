package dev.entangle.rules;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import java.util.Arrays;

/**
 * {@code sum(flatten(x_1), ..., flatten(x_n)) = flatten(sum(x_1, ..., x_n))} for x_i of one shape:
 * reshape-sumn's converse, for an all-reduce or reduce-scatter of tensors each rank flattened first
 * (the flat gradient buffers of ZeRO and FSDP). The pattern language cannot state it (every operand
 * of a sum of any length a reshape). Only flattenings (reshapes to one dim): other views of partial
 * sums are many, and reshape-sumn relates them from the other side.
 */
final class SumnOfReshapes implements NativeRule<SumnOfReshapes.Flattened> {
  static final String NAME = "sumn-of-reshapes";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "a sum of flattenings of tensors of one shape is the flattening of their sum";
  }

  /**
   * A sum whose every term is a flattening of a tensor of one shape.
   *
   * @param sum the sum's class
   * @param inputs the flattened tensors' classes, in order
   * @param shape the flattenings' shape (one dim)
   */
  record Flattened(int sum, int[] inputs, long[] shape) {}

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Flattened> found) {
    for (EGraph.Held held : g.nodesWithOp(Op.SUMN.id())) {
      deadline.poll();
      int c = held.cls();
      ENode n = held.node();
      int[] inputs = new int[n.arity()];
      long[] target = null;
      long[] from = null;
      for (int i = 0; i < n.arity() && inputs != null; i++) {
        ENode r = reshapeIn(g, n.child(i), target, from);
        if (r == null) {
          inputs = null;
        } else {
          target = r.attrs();
          from = g.data(r.child(0)).shape();
          inputs[i] = g.find(r.child(0));
        }
      }
      if (inputs != null) {
        found.match(new Flattened(c, inputs, target));
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Flattened m, Unions unions) {
    int sum = g.add(new ENode(Op.SUMN.id(), new long[0], m.inputs()));
    unions.union(m.sum(), g.add(new ENode(Op.RESHAPE.id(), m.shape(), new int[] {sum})));
  }

  /** A reshape in the class (to {@code target} from a tensor of shape {@code from}, when given). */
  private static ENode reshapeIn(EGraph<TypeInfo> g, int cls, long[] target, long[] from) {
    for (ENode r : g.nodes(cls)) {
      if (r.op() == Op.RESHAPE.id()
          && r.attrs().length == 1
          && (target == null
              || Arrays.equals(r.attrs(), target)
                  && Arrays.equals(g.data(r.child(0)).shape(), from))) {
        return r;
      }
    }
    return null;
  }
}
