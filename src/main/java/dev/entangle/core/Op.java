package dev.entangle.core;

import dev.entangle.core.semantics.Attention;
import dev.entangle.core.semantics.Convolution;
import dev.entangle.core.semantics.Elementwise;
import dev.entangle.core.semantics.Indexing;
import dev.entangle.core.semantics.Layout;
import dev.entangle.core.semantics.Leaves;
import dev.entangle.core.semantics.Matmul;
import dev.entangle.core.semantics.Reductions;
import dev.entangle.core.semantics.Rowwise;
import dev.entangle.core.semantics.Tuples;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The core operator language that ATen graphs are normalized into.
 *
 * <p>Every e-node carries an operator, integer attributes and children. Attribute layouts are fixed
 * per operator (documented on each constant); floats are stored as {@link Double#doubleToLongBits}
 * and dtypes as {@link Dtype} codes. Operators that PyTorch spells in many ways are normalized to
 * one form: {@code view}, {@code reshape}, {@code squeeze}, {@code unsqueeze} and {@code flatten}
 * all become {@link #RESHAPE}; {@code t} and {@code transpose} become {@link #PERMUTE}; {@code mm},
 * {@code bmm} and {@code matmul} become {@link #MATMUL}; tensor-scalar arithmetic becomes
 * tensor-tensor arithmetic over an {@link #EXPAND}ed {@link #SCALAR}.
 *
 * <p>Operators of G_d that the language does not know are kept as opaque operators, whose ids are
 * allocated by {@link OpTable} above {@link #OPAQUE_BASE}.
 */
public enum Op {
  /** A G_d tensor. attrs: [tensor id]. */
  TENSOR(0, Kind.LEAF, Leaves.SEMANTICS),
  /** A 0-d constant. attrs: [value bits, dtype]. */
  SCALAR(0, Kind.LEAF, Leaves.SEMANTICS),
  /** A tensor filled with one value. attrs: [value bits, dtype, sizes...]. */
  FULL(0, Kind.LEAF, Leaves.SEMANTICS),
  /** {@code arange(start, end, step)} over integers. attrs: [start, end, step, dtype]. */
  ARANGE(0, Kind.LEAF, Leaves.SEMANTICS),
  /**
   * Uninitialized memory ({@code empty}); never equal to anything else. attrs: [unique id, dtype,
   * sizes...].
   */
  UNDEF(0, Kind.LEAF, Leaves.SEMANTICS),

  /** Element-wise negation; linear in its operand. */
  NEG(1, Kind.UNARY, Elementwise.SEMANTICS, true),
  EXP(1, Kind.UNARY, Elementwise.SEMANTICS),
  LOG(1, Kind.UNARY, Elementwise.SEMANTICS),
  RELU(1, Kind.UNARY, Elementwise.SEMANTICS),
  /** attrs: [1 for the tanh approximation, else 0]. */
  GELU(1, Kind.UNARY, Elementwise.SEMANTICS),
  SILU(1, Kind.UNARY, Elementwise.SEMANTICS),
  TANH(1, Kind.UNARY, Elementwise.SEMANTICS),
  SIGMOID(1, Kind.UNARY, Elementwise.SEMANTICS),
  RSQRT(1, Kind.UNARY, Elementwise.SEMANTICS),
  SQRT(1, Kind.UNARY, Elementwise.SEMANTICS),
  ABS(1, Kind.UNARY, Elementwise.SEMANTICS),
  RECIPROCAL(1, Kind.UNARY, Elementwise.SEMANTICS),
  /** Logical/bitwise not. */
  NOT(1, Kind.UNARY, Elementwise.SEMANTICS),
  /** Conversion to another dtype. attrs: [dtype]. */
  CAST(1, Kind.UNARY, Elementwise.SEMANTICS),
  /**
   * Another element-wise ATen operator of one tensor (e.g. {@code erf}, {@code sin}). attrs: [the
   * operator's id in the {@link OpTable}, naming its target and non-tensor arguments].
   */
  EW1(1, Kind.UNARY, Elementwise.SEMANTICS),

  ADD(2, Kind.BINARY, Elementwise.SEMANTICS),
  SUB(2, Kind.BINARY, Elementwise.SEMANTICS),
  MUL(2, Kind.BINARY, Elementwise.SEMANTICS),
  DIV(2, Kind.BINARY, Elementwise.SEMANTICS),
  POW(2, Kind.BINARY, Elementwise.SEMANTICS),
  MAXIMUM(2, Kind.BINARY, Elementwise.SEMANTICS),
  MINIMUM(2, Kind.BINARY, Elementwise.SEMANTICS),
  EQ(2, Kind.COMPARE, Elementwise.SEMANTICS),
  NE(2, Kind.COMPARE, Elementwise.SEMANTICS),
  LT(2, Kind.COMPARE, Elementwise.SEMANTICS),
  LE(2, Kind.COMPARE, Elementwise.SEMANTICS),
  GT(2, Kind.COMPARE, Elementwise.SEMANTICS),
  GE(2, Kind.COMPARE, Elementwise.SEMANTICS),
  AND(2, Kind.BINARY, Elementwise.SEMANTICS),
  OR(2, Kind.BINARY, Elementwise.SEMANTICS),
  XOR(2, Kind.BINARY, Elementwise.SEMANTICS),
  /**
   * Another element-wise ATen operator of two tensors of one shape (e.g. {@code gelu_backward},
   * {@code threshold_backward}). attrs: [its id in the {@link OpTable}].
   */
  EW2(2, Kind.BINARY, Elementwise.SEMANTICS),
  /** {@code where(cond, a, b)}, all three of one shape. */
  WHERE(3, Kind.TERNARY, Elementwise.SEMANTICS),

  /** Broadcast to a shape (input dims right-aligned, each 1 or equal). attrs: [sizes...]. */
  EXPAND(1, Kind.LAYOUT, Layout.SEMANTICS),
  /** Same elements in row-major order, another shape. attrs: [sizes...]. */
  RESHAPE(1, Kind.LAYOUT, Layout.SEMANTICS),
  /** attrs: [dims...]: output dim i is input dim dims[i]. */
  PERMUTE(1, Kind.LAYOUT, Layout.SEMANTICS),
  /** attrs: [dim, start, end, step], start/end already clamped to [0, size]. */
  SLICE(1, Kind.LAYOUT, Layout.SEMANTICS),
  /** Concatenation of one or more tensors. attrs: [dim]. */
  CONCAT(-1, Kind.LAYOUT, Layout.SEMANTICS),

  /** Element-wise sum of one or more tensors of one shape (what a sum all-reduce computes). */
  SUMN(-1, Kind.COMBINE, Elementwise.SEMANTICS),
  /** Element-wise max of one or more tensors of one shape. */
  MAXN(-1, Kind.COMBINE, Elementwise.SEMANTICS),
  /** Element-wise min of one or more tensors of one shape. */
  MINN(-1, Kind.COMBINE, Elementwise.SEMANTICS),

  /** Sum over dims. attrs: [keepdim, dims...] (dims sorted, non-negative). */
  RSUM(1, Kind.REDUCE, Reductions.SEMANTICS),
  /** Mean over dims. attrs: [keepdim, dims...]. */
  RMEAN(1, Kind.REDUCE, Reductions.SEMANTICS),
  /** Max over dims. attrs: [keepdim, dims...]. */
  RAMAX(1, Kind.REDUCE, Reductions.SEMANTICS),
  /** Min over dims. attrs: [keepdim, dims...]. */
  RAMIN(1, Kind.REDUCE, Reductions.SEMANTICS),
  /** Index of the max along one dim. attrs: [keepdim, dim]. */
  ARGMAX(1, Kind.REDUCE, Reductions.SEMANTICS),
  /**
   * The k largest entries along one dim, largest first, or with [largest] 0 the k smallest,
   * smallest first (a NaN counts as larger than every number, as torch's kernel orders it; of equal
   * entries the first comes first). attrs: [dim, k, largest].
   */
  TOPK(1, Kind.OTHER, Reductions.SEMANTICS),
  /**
   * The indices of {@link #TOPK}'s entries along its dim, in its order; int64. attrs: [dim, k,
   * largest].
   */
  TOPK_INDICES(1, Kind.OTHER, Reductions.SEMANTICS),

  /** attrs: [dim]. */
  SOFTMAX(1, Kind.ALONG_DIM, Rowwise.SEMANTICS),
  /** attrs: [dim]. */
  LOG_SOFTMAX(1, Kind.ALONG_DIM, Rowwise.SEMANTICS),
  /** Gradient of softmax from (grad, softmax output) along one dim. attrs: [dim]. */
  SOFTMAX_BACKWARD(2, Kind.ALONG_DIM_2, Rowwise.SEMANTICS),
  /** Gradient of log-softmax from (grad, log-softmax output) along one dim. attrs: [dim]. */
  LOG_SOFTMAX_BACKWARD(2, Kind.ALONG_DIM_2, Rowwise.SEMANTICS),
  /** (x - mean) * rstd over the last k dims. attrs: [k, eps bits]. */
  LN_NORMALIZE(1, Kind.LAST_DIMS, Rowwise.SEMANTICS),
  /** Mean over the last k dims, kept as size-1 dims. attrs: [k]. */
  LN_MEAN(1, Kind.LAST_DIMS, Rowwise.SEMANTICS),
  /** 1/sqrt(var + eps) over the last k dims, kept as size-1 dims. attrs: [k, eps bits]. */
  LN_RSTD(1, Kind.LAST_DIMS, Rowwise.SEMANTICS),
  /** x * rsqrt(mean(x^2) + eps) over the last k dims. attrs: [k, eps bits]. */
  RMS_NORMALIZE(1, Kind.LAST_DIMS, Rowwise.SEMANTICS),

  /** Matrix product a[..., m, k] @ b[k, n] or a[B..., m, k] @ b[B..., k, n]. */
  MATMUL(2, Kind.OTHER, Matmul.SEMANTICS),
  /** Rows of the table w[V, H] selected by integer ids: result ids.shape + [H]. */
  EMBEDDING(2, Kind.OTHER, Indexing.SEMANTICS),
  /**
   * Vocabulary-range embedding: rows of ids in [lo, hi) looked up as (id - lo) in the shard w, zero
   * rows elsewhere. attrs: [lo, hi].
   */
  EMBEDDING_RANGE(2, Kind.OTHER, Indexing.SEMANTICS),
  /** {@code x[i0, i1]}: advanced indexing of a 2-d x by two index tensors of one shape. */
  INDEX2(3, Kind.OTHER, Indexing.SEMANTICS),
  /** {@code x[..., idx]}: for each position of idx, the element of x's last dim it names. */
  PICK(2, Kind.OTHER, Indexing.SEMANTICS),
  /**
   * A vocabulary shard's pick: where lo <= idx < hi, {@code x[..., idx - lo]}; elsewhere 0. attrs:
   * [lo, hi].
   */
  PICK_RANGE(2, Kind.OTHER, Indexing.SEMANTICS),
  /**
   * The gradient of a table's rows [lo, hi) from an embedding lookup: row v is the sum of the
   * gradient rows g[p] at the positions p where ids[p] = lo + v (embedding_dense_backward of a [hi
   * - lo, H] table when lo = 0). grad[..., H], ids[...]; result [hi - lo, H]. attrs: [lo, hi].
   */
  EMBEDDING_GRAD(2, Kind.OTHER, Indexing.SEMANTICS),
  /**
   * Whether each integer id lies outside [lo, hi): the mask of a vocabulary shard. attrs: [lo, hi].
   */
  OUT_OF_RANGE(1, Kind.OTHER, Indexing.SEMANTICS),
  /**
   * Rotary position embedding of x[tokens, heads * head_size] by positions and a cos/sin cache,
   * applied to each head alike. attrs: [head_size, 1 for the GPT-NeoX layout else 0].
   */
  ROPE(3, Kind.OTHER, Attention.SEMANTICS),
  /**
   * Attention of q[tokens, q_heads, d] over k, v[tokens, kv_heads, d] (grouped when q_heads is a
   * multiple of kv_heads); each group of heads is independent. Result: q's shape.
   */
  ATTENTION(3, Kind.OTHER, Attention.SEMANTICS),
  /** Item i of an opaque operator's tuple result. attrs: [i]. */
  ITEM(1, Kind.OTHER, Tuples.SEMANTICS),
  /**
   * Multiplication by the exact rational num/den (the clean function {@code scale(e, P, Q)}, and
   * with a sum across ranks {@code mean(...)}); linear in its operand. attrs: [num, den > 0], then
   * 1 for a factor the checker derived rather than one a relation states ({@link #scaleAttrs}).
   */
  SCALE(1, Kind.UNARY, Elementwise.SEMANTICS, true),
  /**
   * Convolution of x[N, C, S...] by w[O, C/groups, K...] over d spatial dims (torch's {@code
   * aten.convolution}, not transposed). attrs: [groups, d, stride × d, pad × d, dilation × d].
   */
  CONV(2, Kind.OTHER, Convolution.SEMANTICS),
  /**
   * The gradient of {@code conv} with respect to x, from gy[N, O, T...] and w. attrs: conv's, then
   * x's spatial sizes × d.
   */
  CONV_INPUT_GRAD(2, Kind.OTHER, Convolution.SEMANTICS),
  /**
   * The gradient of {@code conv} with respect to w, from x and gy[N, O, T...]. attrs: conv's, then
   * the kernel's spatial sizes × d.
   */
  CONV_WEIGHT_GRAD(2, Kind.OTHER, Convolution.SEMANTICS);

  /**
   * The operands the operator is linear in, each with the others held fixed: either operand of a
   * matrix product or a convolution (or its gradients); the first of a softmax or log-softmax
   * gradient, a rotary embedding, a pick, a gather, an embedding and its gradient. None for the
   * others (the element-wise ones linear in their one operand say so with {@link #linear}).
   */
  public int[] linearOperands() {
    return switch (this) {
      case MATMUL, CONV, CONV_INPUT_GRAD, CONV_WEIGHT_GRAD -> new int[] {0, 1};
      case SOFTMAX_BACKWARD,
          LOG_SOFTMAX_BACKWARD,
          ROPE,
          PICK,
          PICK_RANGE,
          INDEX2,
          EMBEDDING,
          EMBEDDING_RANGE,
          EMBEDDING_GRAD ->
          new int[] {0};
      default -> new int[0];
    };
  }

  /** {@code scale}'s attributes; a derived factor is one no output relation may rest on. */
  public static long[] scaleAttrs(long num, long den, boolean derived) {
    return derived ? new long[] {num, den, 1} : new long[] {num, den};
  }

  /** Whether {@code scale}'s attributes mark a derived factor ({@link #scaleAttrs}). */
  public static boolean derivedScale(long[] attrs) {
    return attrs.length > 2 && attrs[2] != 0;
  }

  /** Number of children, or -1 for one or more. */
  public final int arity;

  public final Kind kind;

  private final Semantics semantics;

  /** Whether the operator is linear in its operand: f(sum x) = sum f(x). */
  public final boolean linear;

  /** Ids of opaque operators start here. */
  public static final int OPAQUE_BASE = 1000;

  private static final Op[] VALUES = values();
  private static final Map<String, Op> BY_NAME = new HashMap<>();

  static {
    for (Op op : VALUES) {
      BY_NAME.put(op.symbol(), op);
    }
  }

  Op(int arity, Kind kind, Semantics semantics) {
    this(arity, kind, semantics, false);
  }

  Op(int arity, Kind kind, Semantics semantics, boolean linear) {
    this.arity = arity;
    this.kind = kind;
    this.semantics = semantics;
    this.linear = linear;
  }

  /** Its meaning: shape rule and reference kernel ({@link Semantics}). */
  public Semantics semantics() {
    return semantics;
  }

  /** The name used in lemma files and debug output, e.g. {@code matmul}, {@code log_softmax}. */
  public String symbol() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The e-graph operator id. */
  public int id() {
    return ordinal();
  }

  /** The core operator with this id, or null for an opaque id. */
  public static Op of(int id) {
    return id >= 0 && id < VALUES.length ? VALUES[id] : null;
  }

  /** The core operator with this lemma-file name, or null. */
  public static Op bySymbol(String symbol) {
    return BY_NAME.get(symbol);
  }

  /**
   * Whether one operand alone is the operator's value ({@code concat}, {@code sumn}, {@code maxn},
   * {@code minn} of one tensor): such nodes are never built; the operand stands for them.
   */
  public boolean isIdentityOfOne() {
    return this == CONCAT || this == SUMN || this == MAXN || this == MINN;
  }

  /** Whether an output relation may contain this operator (docs/formats.md, Clean functions). */
  public boolean isClean() {
    return this == TENSOR
        || this == CONCAT
        || this == SLICE
        || this == SUMN
        || this == MAXN
        || this == MINN
        || this == PERMUTE
        || this == RESHAPE
        || this == SCALE;
  }

  /** What an operator is, structurally; lemma families ({@link Family}) follow from it. */
  public enum Kind {
    LEAF,
    /** Element-wise, one operand. */
    UNARY,
    /** Element-wise, two operands of one shape. */
    BINARY,
    /** Element-wise comparison of two operands of one shape; a boolean result. */
    COMPARE,
    TERNARY,
    LAYOUT,
    COMBINE,
    /** A reduction along the dims its attributes list: [keepdim, dims...]. */
    REDUCE,
    /** Independent along every dim but its attribute [dim]. */
    ALONG_DIM,
    /** Two operands of one shape, independent along every dim but its attribute [dim]. */
    ALONG_DIM_2,
    /** Independent along every dim but the last k: attributes [k, ...]. */
    LAST_DIMS,
    OTHER
  }

  /**
   * The operator families lemmas are written over ({@code ?f:unary}): each is derived from the
   * operators' declared kinds and properties, so a property is stated once, here, and a lemma over
   * a family covers every member.
   */
  public enum Family {
    UNARY("unary", "element-wise operators of one operand"),
    BINARY("binary", "element-wise operators of two operands of one shape"),
    REDUCE("reduce", "reductions along the dims listed in their attributes [keepdim dims...]"),
    ALONG_DIM("along-dim", "operators independent along every dim but their attribute [dim]"),
    ALONG_DIM_2(
        "along-dim-2",
        "operators of two operands of one shape independent along every dim but their attribute [dim]"),
    LAST_DIMS(
        "last-dims", "operators independent along every dim but the last k, attributes [k ...]"),
    LINEAR_UNARY("linear-unary", "operators linear in their one operand: f(sum x) = sum f(x)");

    private final String lemmaName;
    private final String doc;

    Family(String lemmaName, String doc) {
      this.lemmaName = lemmaName;
      this.doc = doc;
    }

    /** The family's name in lemma files, e.g. {@code unary}. */
    public String lemmaName() {
      return lemmaName;
    }

    /** One line saying what the members have in common. */
    public String doc() {
      return doc;
    }

    /** Whether {@code op} belongs to the family. */
    public boolean contains(Op op) {
      return switch (this) {
        case UNARY -> op.kind == Kind.UNARY;
        case BINARY -> op.kind == Kind.BINARY || op.kind == Kind.COMPARE;
        case REDUCE -> op.kind == Kind.REDUCE;
        case ALONG_DIM -> op.kind == Kind.ALONG_DIM;
        case ALONG_DIM_2 -> op.kind == Kind.ALONG_DIM_2;
        case LAST_DIMS -> op.kind == Kind.LAST_DIMS;
        case LINEAR_UNARY -> op.kind == Kind.UNARY && op.linear;
      };
    }

    /** The members' operator ids, in declaration order. */
    public int[] ids() {
      return Arrays.stream(VALUES).filter(this::contains).mapToInt(Op::id).toArray();
    }
  }
}
