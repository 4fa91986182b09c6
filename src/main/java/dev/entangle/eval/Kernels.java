package dev.entangle.eval;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.ShapeException;
import dev.entangle.core.Shapes;
import dev.entangle.core.TypeInfo;
import java.util.Arrays;
import java.util.function.LongFunction;

/**
 * The numeric meaning of every core operator ({@link Op}): {@link #apply} computes {@code op(attrs;
 * inputs)} on tensors. The result's shape and dtype are what {@link Shapes} infers, so operands
 * that do not fit are refused the same way; the work is charged to a {@link WorkBudget} first.
 * Opaque operators other than the element-wise ones named in {@link AtenPointwise} have no numeric
 * meaning here, and {@code undef} has no value at all: both are {@link EvalException}s.
 */
public final class Kernels {
  private final OpTable table;
  private final Shapes shapes;
  private final WorkBudget budget;
  private final LongFunction<Tensor> tensors;

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
    budget.work(cost(op, attrs, inputs, out), op.symbol() + " of " + shapesOf(inputs));
    double[] data = compute(op, attrs, inputs, out);
    return new Tensor(out.shape().clone(), out.dtype(), data);
  }

  private double[] compute(Op op, long[] a, Tensor[] in, TypeInfo out) {
    long[] shape = out.shape();
    switch (op.kind) {
      case LEAF:
        return constant(op, a, shape);
      case UNARY:
        if (op == Op.CAST) {
          return PointwiseKernels.cast(in[0].raw(), (int) a[0]);
        }
        if (op == Op.EW1) {
          AtenPointwise.Fn f = pointwise((int) a[0]);
          return PointwiseKernels.map(in[0].raw(), v -> f.apply(v, 0));
        }
        return PointwiseKernels.map(in[0].raw(), PointwiseKernels.unary(op, a, in[0].dtype()));
      case BINARY:
      case COMPARE:
        if (op == Op.EW2) {
          AtenPointwise.Fn f = pointwise((int) a[0]);
          return PointwiseKernels.zip(in[0].raw(), in[1].raw(), f::apply);
        }
        return PointwiseKernels.zip(
            in[0].raw(), in[1].raw(), PointwiseKernels.binary(op, in[0].dtype()));
      case TERNARY:
        return PointwiseKernels.where(in[0].raw(), in[1].raw(), in[2].raw());
      case COMBINE:
        double[][] xs = new double[in.length][];
        for (int i = 0; i < in.length; i++) {
          xs[i] = in[i].raw();
        }
        return PointwiseKernels.combine(op, xs);
      case LAYOUT:
        return switch (op) {
          case EXPAND -> LayoutKernels.expand(in[0], a);
          case RESHAPE -> in[0].raw().clone();
          case PERMUTE -> LayoutKernels.permute(in[0], a);
          case SLICE -> LayoutKernels.slice(in[0], a);
          default -> LayoutKernels.concat(in, (int) a[0], shape);
        };
      case REDUCE:
        return op == Op.ARGMAX
            ? ReductionKernels.argmax(in[0], (int) a[1])
            : ReductionKernels.reduce(op, in[0], a);
      case ALONG_DIM:
      case ALONG_DIM_2:
      case LAST_DIMS:
        return switch (op) {
          case SOFTMAX, LOG_SOFTMAX -> RowwiseKernels.softmax(op, in[0], (int) a[0]);
          case SOFTMAX_BACKWARD, LOG_SOFTMAX_BACKWARD ->
              RowwiseKernels.softmaxBackward(op, in[0], in[1], (int) a[0]);
          default -> RowwiseKernels.lastDims(op, in[0], a);
        };
      default:
        return other(op, a, in, shape);
    }
  }

  private double[] other(Op op, long[] a, Tensor[] in, long[] shape) {
    return switch (op) {
      case MATMUL -> MatmulKernel.matmul(in[0], in[1], shape);
      case EMBEDDING -> IndexKernels.embedding(in[0], in[1]);
      case EMBEDDING_RANGE -> IndexKernels.embeddingRange(in[0], in[1], a[0], a[1]);
      case INDEX2 -> IndexKernels.index2(in[0], in[1], in[2]);
      case PICK -> IndexKernels.pick(in[0], in[1]);
      case PICK_RANGE -> IndexKernels.pickRange(in[0], in[1], a[0], a[1]);
      case EMBEDDING_GRAD -> IndexKernels.embeddingGrad(in[0], in[1], a[0], a[1]);
      case OUT_OF_RANGE -> IndexKernels.outOfRange(in[0], a[0], a[1]);
      case ROPE -> AttentionKernels.rope(in[0], in[1], in[2], a[0], a[1] != 0);
      case ATTENTION -> AttentionKernels.attention(in[0], in[1], in[2]);
      default -> throw new IllegalStateException("no kernel for " + op.symbol());
    };
  }

  /** {@code scalar}, {@code full} and {@code arange}, their values rounded to their dtype. */
  private static double[] constant(Op op, long[] a, long[] shape) {
    double[] out = new double[Tensor.checkedNumel(shape)];
    switch (op) {
      case SCALAR, FULL -> Arrays.fill(out, Rounding.to((int) a[1], Double.longBitsToDouble(a[0])));
      case ARANGE -> {
        for (int i = 0; i < out.length; i++) {
          out[i] = Rounding.to((int) a[3], a[0] + (double) i * a[2]);
        }
      }
      default -> throw new IllegalStateException("no kernel for " + op.symbol());
    }
    return out;
  }

  private AtenPointwise.Fn pointwise(int id) {
    return AtenPointwise.of(
        table.opaqueTarget(id), table.opaqueArguments(id), table.opaqueType(id).dtype());
  }

  /**
   * Work units: one per element written or read, plus the multiply-adds of products and attention.
   */
  private static long cost(Op op, long[] a, Tensor[] in, TypeInfo out) {
    long n = Tensor.numel(out.shape());
    for (Tensor t : in) {
      n += t.numel();
    }
    return switch (op) {
      case MATMUL -> n + MatmulKernel.cost(in[0].rawShape(), in[1].rawShape());
      case ATTENTION -> n + AttentionKernels.attentionCost(in[0].rawShape());
      default -> n;
    };
  }

  private static String shapesOf(Tensor[] in) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < in.length; i++) {
      sb.append(i > 0 ? " and " : "").append(Arrays.toString(in[i].rawShape()));
    }
    return in.length == 0 ? "nothing" : sb.toString();
  }
}
