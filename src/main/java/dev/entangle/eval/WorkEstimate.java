package dev.entangle.eval;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import dev.entangle.core.CoreValue;
import dev.entangle.core.Op;
import dev.entangle.core.Steps;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.ValueKind;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.semantics.Attention;
import dev.entangle.core.semantics.Convolution;
import dev.entangle.core.semantics.Matmul;

/**
 * What evaluating a program once will cost, from its types alone, before any number is drawn: the
 * work the kernels will charge (the same units as {@link WorkBudget}) and the elements its inputs
 * hold. Lets a caller refuse a model that cannot fit its budget without spending the budget first.
 *
 * @param work the kernels' work for every operation
 * @param inputElements the elements of every input
 */
public record WorkEstimate(long work, long inputElements) {
  /** The estimate for one evaluation of {@code p}. */
  public static WorkEstimate of(CoreProgram p) {
    long work = 0;
    long inputs = 0;
    for (CoreValue v : p.values()) {
      if (v.kind() == ValueKind.INPUT) {
        inputs = saturatingAdd(inputs, Tensor.numel(v.type().shape()));
      }
    }
    for (CoreOp op : p.ops()) {
      Steps s = op.steps();
      for (int i = 0; i < s.size(); i++) {
        if (s.kind(i) != Steps.ADD) {
          continue;
        }
        int[] kids = s.kids(i);
        TypeInfo[] in = new TypeInfo[kids.length];
        for (int k = 0; k < kids.length; k++) {
          in[k] = s.type(kids[k]);
        }
        work = saturatingAdd(work, cost(s.arg(i), in, s.type(s.slot(i))));
      }
    }
    return new WorkEstimate(work, inputs);
  }

  /** The work of one kernel call by its operand and result types, as {@link Kernels} charges it. */
  static long cost(int opId, TypeInfo[] in, TypeInfo out) {
    if (out == null || out.isTuple()) {
      return 0;
    }
    long n = Tensor.numel(out.shape());
    for (TypeInfo t : in) {
      if (t != null && !t.isTuple()) {
        n = saturatingAdd(n, Tensor.numel(t.shape()));
      }
    }
    Op op = Op.of(opId);
    if (op == Op.MATMUL && in.length == 2) {
      return saturatingAdd(n, Matmul.cost(in[0].shape(), in[1].shape()));
    }
    if ((op == Op.CONV || op == Op.CONV_INPUT_GRAD || op == Op.CONV_WEIGHT_GRAD)
        && in.length == 2) {
      return saturatingAdd(n, Convolution.cost(op, in[0].shape(), in[1].shape(), out.shape()));
    }
    if (op == Op.ATTENTION && in.length == 3) {
      return saturatingAdd(n, Attention.attentionCost(in[0].shape()));
    }
    return n;
  }

  private static long saturatingAdd(long a, long b) {
    long s = a + b;
    return s < 0 ? Long.MAX_VALUE : s;
  }
}
