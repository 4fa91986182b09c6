package dev.entangle.core;

import java.util.BitSet;

/**
 * Facts about the numbers in a term, read from how it is built, for a lowering to fold the guards a
 * program writes against numbers it cannot produce: whether every element is a finite number (no
 * infinity, no NaN), so that a test of finiteness is decided (JAX's {@code logsumexp} shifts by the
 * max only where the max {@code is_finite}, torch's where its absolute value is not infinite), and
 * whether every element is a number at least 0 or +inf (none negative, none NaN), so that an
 * absolute value is the value itself (JAX's {@code logsumexp} takes the log of the absolute value
 * of its sum of exponentials) and a test of its sign is decided (its derivative tests {@code s >=
 * 0}).
 *
 * <p>Floating point is read as real arithmetic, as everywhere in the checker: inputs hold finite
 * numbers (as the numbers the checker draws do), and sums, products, extremes, layouts and the
 * bounded functions of finite numbers are finite. What may be infinite or NaN at finite operands is
 * never finite here: exp (it overflows), log, division (but by a finite non-zero constant), powers,
 * square roots and their reciprocals, a normalization without epsilon, unknown element-wise
 * kernels, and a reduction of an empty tensor (the max of nothing is -inf). A maximum is finite
 * when one operand is and the others are too or are a constant below +inf (JAX's {@code max(x,
 * -inf)} from a reduction's initial value); a minimum alike.
 */
public final class NumberFacts {
  private NumberFacts() {}

  /** The facts a lowered program shows of each of its values. */
  public static final class Known {
    private final BitSet finite = new BitSet();
    private final BitSet nonNegative = new BitSet();

    /** Reads each value's facts from its defining operation's steps. */
    public static Known of(CoreProgram p) {
      Known k = new Known();
      for (CoreValue v : p.values()) {
        if (v.kind() == ValueKind.INPUT) {
          k.finite.set(v.id());
        } else if (v.op() >= 0) {
          CoreOp op = p.ops().get(v.op());
          int slot = op.resultSlot(v.item());
          if (slot >= 0) {
            k.finite.set(v.id(), op.steps().finite(slot));
            k.nonNegative.set(v.id(), op.steps().nonNegative(slot));
          }
        }
      }
      return k;
    }

    public boolean finite(int valueId) {
      return finite.get(valueId);
    }

    /** Whether both know the same facts of the same values. */
    public boolean sameAs(Known other) {
      return finite.equals(other.finite) && nonNegative.equals(other.nonNegative);
    }

    public boolean nonNegative(int valueId) {
      return nonNegative.get(valueId);
    }
  }

  /**
   * Whether {@code op(attrs; kids)}, of type {@code out}, holds finite numbers only, given its
   * operands' types and which of them do.
   */
  public static boolean finite(
      int op, long[] attrs, TypeInfo[] kids, boolean[] finite, TypeInfo out) {
    if (out.isTuple()) {
      return false;
    }
    if (!Dtype.of(out.dtype()).isFloating()) {
      return true; // integers and bools have no infinity
    }
    if (out.constant() != null) {
      return Double.isFinite(out.constant());
    }
    Op o = Op.of(op);
    if (o == null) {
      return false; // an opaque call
    }
    return switch (o) {
      case SCALAR, FULL -> Double.isFinite(Double.longBitsToDouble(attrs[0]));
      case ARANGE -> true;
      case MAXIMUM, MAXN -> extreme(kids, finite, Double.POSITIVE_INFINITY);
      case MINIMUM, MINN -> extreme(kids, finite, Double.NEGATIVE_INFINITY);
      case DIV -> finite[0] && nonZeroConstant(kids[1]);
      case WHERE -> finite[1] && finite[2];
      case RSUM, RMEAN, RAMAX, RAMIN, LN_MEAN -> all(finite) && nonEmpty(kids[0]);
      case LN_NORMALIZE, LN_RSTD, RMS_NORMALIZE ->
          all(finite) && Double.longBitsToDouble(attrs[1]) > 0;
      case NEG,
          RELU,
          GELU,
          SILU,
          TANH,
          SIGMOID,
          ABS,
          CAST,
          ADD,
          SUB,
          MUL,
          SUMN,
          EXPAND,
          RESHAPE,
          PERMUTE,
          SLICE,
          CONCAT,
          SOFTMAX,
          LOG_SOFTMAX,
          SOFTMAX_BACKWARD,
          LOG_SOFTMAX_BACKWARD,
          MATMUL,
          EMBEDDING,
          EMBEDDING_RANGE,
          PICK,
          PICK_RANGE,
          INDEX2,
          EMBEDDING_GRAD,
          ROPE,
          ATTENTION,
          SCALE,
          CONV,
          CONV_INPUT_GRAD ->
          all(finite);
      default -> false;
    };
  }

  /**
   * Whether every element of {@code op(attrs; kids)}, of type {@code out}, is a number at least 0
   * or +inf (none negative, none NaN), given which of its operands are so and which are finite:
   * exponentials, sigmoid, relu and absolute values of what is not NaN, softmax of finite numbers,
   * square roots of what is so, and sums, means, extremes, layouts and positive multiples of such.
   * A product or a quotient is so only where no 0 can meet an infinity.
   */
  public static boolean nonNegative(
      int op,
      long[] attrs,
      TypeInfo[] kids,
      boolean[] nonNegative,
      boolean[] finite,
      TypeInfo out) {
    if (out.isTuple()) {
      return false;
    }
    Dtype dt = Dtype.of(out.dtype());
    if (dt == Dtype.BOOL || dt == Dtype.UINT8 || dt == Dtype.UINT16 || dt == Dtype.UINT32) {
      return true;
    }
    if (out.constant() != null) {
      return out.constant() >= 0;
    }
    Op o = Op.of(op);
    if (o == null) {
      return false;
    }
    return switch (o) {
      case SCALAR, FULL -> Double.longBitsToDouble(attrs[0]) >= 0;
      case ARANGE -> attrs[0] >= 0 && attrs[2] > 0;
      case EXP, SIGMOID, RELU, ABS -> notNaN(nonNegative, finite, 0);
      case SOFTMAX, LN_RSTD -> finite[0];
      case SQRT, RSQRT -> nonNegative[0];
      case MAXIMUM, MAXN -> any(nonNegative) && allNotNaN(nonNegative, finite);
      case WHERE -> nonNegative[1] && nonNegative[2];
      case SCALE -> attrs[0] > 0 && all(nonNegative);
      case MUL -> all(nonNegative) && (all(finite) || allButOnePositiveConstants(kids));
      case DIV -> nonNegative[0] && positiveConstant(kids[1]);
      case RAMAX, RAMIN, RMEAN -> all(nonNegative) && nonEmpty(kids[0]);
      case CAST -> nonNegative[0] && (finite[0] || Dtype.isFloating(out.dtype())); // +inf to an int
      case ADD, SUMN, MINIMUM, MINN, RSUM, EXPAND, RESHAPE, PERMUTE, SLICE, CONCAT ->
          all(nonNegative);
      default -> false;
    };
  }

  /** Whether operand {@code i} holds no NaN: it is finite, or at least 0 or +inf. */
  private static boolean notNaN(boolean[] nonNegative, boolean[] finite, int i) {
    return nonNegative[i] || finite[i];
  }

  private static boolean allNotNaN(boolean[] nonNegative, boolean[] finite) {
    for (int i = 0; i < finite.length; i++) {
      if (!notNaN(nonNegative, finite, i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether every operand but at most one is a known number above 0 (no 0 meets an infinity). */
  private static boolean allButOnePositiveConstants(TypeInfo[] kids) {
    int others = 0;
    for (TypeInfo k : kids) {
      if (!positiveConstant(k)) {
        others++;
      }
    }
    return others <= 1;
  }

  private static boolean positiveConstant(TypeInfo t) {
    return t.constant() != null && t.constant() > 0 && Double.isFinite(t.constant());
  }

  private static boolean any(boolean[] facts) {
    for (boolean f : facts) {
      if (f) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether an extreme (a maximum when {@code bad} is +inf, a minimum when it is -inf) of the
   * operands is finite: one operand is, and every other is too or is a constant that is a number
   * other than {@code bad}.
   */
  private static boolean extreme(TypeInfo[] kids, boolean[] finite, double bad) {
    boolean some = false;
    for (int i = 0; i < kids.length; i++) {
      Double c = kids[i].constant();
      if (finite[i]) {
        some = true;
      } else if (c == null || c.isNaN() || c == bad) {
        return false;
      }
    }
    return some;
  }

  private static boolean all(boolean[] finite) {
    for (boolean f : finite) {
      if (!f) {
        return false;
      }
    }
    return true;
  }

  private static boolean nonZeroConstant(TypeInfo t) {
    Double c = t.constant();
    return c != null && Double.isFinite(c) && c != 0;
  }

  private static boolean nonEmpty(TypeInfo t) {
    for (long s : t.shape()) {
      if (s <= 0) {
        return false;
      }
    }
    return true;
  }
}
