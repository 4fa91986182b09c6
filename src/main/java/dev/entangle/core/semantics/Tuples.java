package dev.entangle.core.semantics;

import dev.entangle.core.Op;
import dev.entangle.core.Semantics;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;

/**
 * {@code item}: one item of an opaque operator's tuple result. Tuples have no numbers; the
 * interpreter reads an item where it evaluates the tuple's operator.
 */
public final class Tuples implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Tuples SEMANTICS = new Tuples();

  private Tuples() {}

  @Override
  public TypeInfo type(Op op, long[] a, TypeInfo[] c, Context context) {
    if (!c[0].isTuple()
        || a[0] < 0
        || a[0] >= c[0].items().size()
        || c[0].items().get((int) a[0]) == null) {
      throw new ShapeException("item " + a[0] + " of " + c[0]);
    }
    return c[0].items().get((int) a[0]);
  }

  @Override
  public double[] compute(Op op, long[] a, Tensor[] in, TypeInfo out, Context context) {
    throw new EvalException("item " + a[0] + " of a value that is not a tuple");
  }

  @Override
  public boolean hasKernel(Op op) {
    return false;
  }

  @Override
  public String shapeRule(Op op) {
    return "the type of item [i] of the operand's tuple";
  }
}
