package dev.entangle.core;

import dev.entangle.core.numeric.Rounding;
import dev.entangle.core.numeric.Tensor;

/**
 * The elements of small terms built from constants alone, computed while lowering: a program's
 * fixed index vectors (DTensor's reorder of a strided shard sorts and selects positions that are
 * aranges, splits and concats of constants), which a lowering then reads as the layout they pick.
 * An operator is computed by its own kernel ({@link Semantics#compute}); what has no kernel, no
 * defined contents, more than {@link #MAX_ELEMENTS} elements or a dtype without numbers is not
 * known, nor is an integer past 2^53.
 */
public final class KnownValues {
  /** The most elements of a value computed while lowering. */
  public static final int MAX_ELEMENTS = 1 << 16;

  /** Integers up to this hold exactly in a double. */
  private static final double EXACT = 0x1p53;

  private KnownValues() {}

  /** {@code op(attrs; operands)} of type {@code out}, or null when it is not to be known. */
  public static Tensor apply(int opId, long[] attrs, Tensor[] operands, TypeInfo out) {
    Op op = Op.of(opId);
    if (op == null
        || op == Op.UNDEF
        || op == Op.TENSOR
        || op == Op.ITEM
        || out == null
        || out.isTuple()
        || !op.semantics().hasKernel(op)
        || !Rounding.isSupported(out.dtype())
        || Tensor.numel(out.shape()) > MAX_ELEMENTS) {
      return null;
    }
    try {
      double[] data = op.semantics().compute(op, attrs, operands, out, NO_CONTEXT);
      if (Rounding.isIntegral(out.dtype())) {
        for (double v : data) {
          if (Math.abs(v) > EXACT) {
            return null; // past what a double holds exactly
          }
        }
      }
      return new Tensor(out.shape().clone(), out.dtype(), data);
    } catch (RuntimeException e) {
      return null; // a kernel that refuses (or needs a run's context) leaves the value unknown
    }
  }

  /** Constants need no run: an operator that asks for one is not computed here. */
  private static final Semantics.Context NO_CONTEXT =
      new Semantics.Context() {
        @Override
        public OpTable table() {
          throw new IllegalStateException("no operator table while lowering");
        }

        @Override
        public TypeInfo tensorType(long id) {
          throw new IllegalStateException("no G_d tensors while lowering");
        }

        @Override
        public Tensor tensorValue(long id) {
          throw new IllegalStateException("no G_d tensors while lowering");
        }
      };
}
