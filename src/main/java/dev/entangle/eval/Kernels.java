package dev.entangle.eval;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.Semantics;
import dev.entangle.core.ShapeException;
import dev.entangle.core.Shapes;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Rounding;
import dev.entangle.core.numeric.Tensor;
import java.util.Arrays;
import java.util.function.LongFunction;

/**
 * The interpreter's step: {@link #apply} computes {@code op(attrs; inputs)} on tensors with the
 * operator's reference kernel ({@link Op#semantics()}). The result's shape and dtype are what
 * {@link Shapes} infers, so operands that do not fit are refused the same way; the work is charged
 * to a {@link WorkBudget} first. Opaque operators other than the element-wise ones named in {@code
 * AtenPointwise} have no numeric meaning here, and {@code undef} has no value at all: both are
 * {@link EvalException}s.
 */
public final class Kernels {
  private final OpTable table;
  private final Shapes shapes;
  private final WorkBudget budget;
  private final LongFunction<Tensor> tensors;
  private final Semantics.Context context;

  /** Kernels over a run's operator table; {@code tensor[id]} leaves have no value. */
  public Kernels(OpTable table, WorkBudget budget) {
    this(
        table,
        budget,
        id -> {
          throw new EvalException("tensor[" + id + "] has no value here");
        });
  }

  /**
   * @param tensors the value of each {@code tensor[id]} leaf
   */
  public Kernels(OpTable table, WorkBudget budget, LongFunction<Tensor> tensors) {
    this.table = table;
    this.budget = budget;
    this.tensors = tensors;
    this.shapes = new Shapes(table, id -> typeOf(tensors.apply(id)));
    this.context = Semantics.Context.of(table, id -> typeOf(tensors.apply(id)), tensors);
  }

  public OpTable table() {
    return table;
  }

  public WorkBudget budget() {
    return budget;
  }

  /** The type of a tensor, as the shape analysis sees it. */
  public static TypeInfo typeOf(Tensor t) {
    return TypeInfo.tensor(t.shape(), t.dtype());
  }

  /**
   * The result type of {@code op(attrs; inputs)}, or an {@link EvalException} when the operands do
   * not fit.
   */
  public TypeInfo type(int op, long[] attrs, TypeInfo... inputs) {
    try {
      return shapes.infer(op, attrs, inputs);
    } catch (ShapeException e) {
      throw new EvalException(table.name(op) + ": " + e.getMessage());
    }
  }

  /** The name of an operator id, for messages: the core symbol or the opaque call's signature. */
  public String name(int op) {
    return table.name(op);
  }

  /** Computes {@code op(attrs; inputs)}. */
  public Tensor apply(int opId, long[] attrs, Tensor... inputs) {
    if (OpTable.isOpaque(opId)) {
      throw new EvalException(
          "the operator "
              + table.opaqueTarget(opId)
              + " has no numeric semantics in the"
              + " evaluator ("
              + table.name(opId)
              + ")");
    }
    Op op = Op.of(opId);
    if (op == Op.UNDEF) {
      throw new EvalException("uninitialized memory or a random sample has no defined value");
    }
    if (op == Op.ITEM) {
      throw new EvalException("item " + attrs[0] + " of a value that is not a tuple");
    }
    if (op == Op.TENSOR) {
      return tensors.apply(attrs[0]);
    }
    TypeInfo[] types = new TypeInfo[inputs.length];
    for (int i = 0; i < inputs.length; i++) {
      types[i] = typeOf(inputs[i]);
    }
    TypeInfo out = type(opId, attrs, types);
    if (!Rounding.isSupported(out.dtype())) {
      throw new EvalException(
          op.symbol()
              + " makes a "
              + Dtype.name(out.dtype())
              + " value; the evaluator has numbers for float, int and bool dtypes only");
    }
    budget.work(cost(op, inputs, out), op.symbol() + " of " + shapesOf(inputs));
    double[] data = op.semantics().compute(op, attrs, inputs, out, context);
    return new Tensor(out.shape().clone(), out.dtype(), data);
  }

  /**
   * Work units: one per element written or read, plus what the operator's family adds (the
   * multiply-adds of products and attention).
   */
  private static long cost(Op op, Tensor[] in, TypeInfo out) {
    long n = Tensor.numel(out.shape());
    for (Tensor t : in) {
      n += t.numel();
    }
    return op.semantics().cost(op, in, n);
  }

  private static String shapesOf(Tensor[] in) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < in.length; i++) {
      sb.append(i > 0 ? " and " : "").append(Arrays.toString(in[i].rawShape()));
    }
    return in.length == 0 ? "nothing" : sb.toString();
  }
}
