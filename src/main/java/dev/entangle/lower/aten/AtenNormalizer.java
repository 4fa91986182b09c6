package dev.entangle.lower.aten;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.graph.Arg;
import dev.entangle.graph.Node;
import dev.entangle.graph.TensorType;
import dev.entangle.lower.LoweringException;
import dev.entangle.lower.xla.XlaLowering;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Lowers ATen nodes into the core language ({@link Op}). The same lowering serves G_s and G_d, so
 * the same ATen call in both graphs becomes the same term and congruence relates them.
 *
 * <p>Calls the language does not know become opaque operators ({@link OpTable#opaque}): their
 * non-tensor arguments and result type are part of the operator's identity, their tensor arguments
 * are its children.
 */
public final class AtenNormalizer {
  /** The values (handles) of already lowered nodes: one per result item. */
  public interface Inputs {
    int[] of(String nodeName);

    /**
     * Which graph the node belongs to (G_s: -1, rank k: k), so uninitialized buffers stay distinct.
     */
    default int graphId() {
      return -1;
    }

    /** The target of the call that computes a node's value, or null (an input, or not known). */
    default String target(String nodeName) {
      return null;
    }
  }

  private final OpTable table;
  private final ArithmeticLowering arithmetic = new ArithmeticLowering();
  private final LayoutLowering layout = new LayoutLowering();
  private final FixedIndexLowering fixedIndices = new FixedIndexLowering();
  private final AttentionLowering attention = new AttentionLowering();
  private final ReductionLowering reductions = new ReductionLowering();
  private final CustomOpLowering custom = new CustomOpLowering();
  private final LossLowering losses = new LossLowering();
  private final ConvolutionLowering convolutions = new ConvolutionLowering();
  private final PoolingLowering pooling = new PoolingLowering();
  private final XlaLowering xla;
  private final DropoutLowering dropout;

  public AtenNormalizer(OpTable table) {
    this.table = table;
    this.xla = new XlaLowering(table);
    this.dropout = new DropoutLowering(table);
  }

  /** The table naming the opaque operators this normalizer creates. */
  public OpTable table() {
    return table;
  }

  /**
   * Lowers a {@code call_function} node.
   *
   * @return one handle per result item (one for a tensor result)
   * @throws LoweringException when the arguments cannot be read
   * @throws ShapeException when the operands' shapes do not fit
   */
  public int[] lower(Node node, Inputs inputs, TermBuilder b) {
    Call c = new Call(node, inputs, b);
    String target = node.target();
    if (target.equals("getitem")
        || target.equals("_operator.getitem")
        || target.equals("operator.getitem")) {
      int[] tuple = inputs.of(((Arg.NodeRef) c.arg(0, null)).name());
      int i = (int) c.integer(1, null, null);
      if (i < 0 || i >= tuple.length || tuple[i] < 0) {
        throw new LoweringException(
            "getitem " + i + " of a result with " + tuple.length + " items");
      }
      return new int[] {tuple[i]};
    }
    String base = baseName(target);
    int[] out = dropout.lower(base, c);
    if (out == null) {
      out = arithmetic.lower(base, c);
    }
    if (out == null) {
      out = layout.lower(base, c);
    }
    if (out == null) {
      out = fixedIndices.lower(base, c);
    }
    if (out == null) {
      out = attention.lower(base, c);
    }
    if (out == null) {
      out = reductions.lower(base, c);
    }
    if (out == null) {
      out = losses.lower(base, c);
    }
    if (out == null) {
      out = convolutions.lower(base, c);
    }
    if (out == null) {
      out = pooling.lower(base, c, this::opaque);
    }
    if (out == null) {
      out = custom.lower(target, c);
    }
    if (out == null) {
      out = xla.lower(base, c);
    }
    if (out == null && ELEMENTWISE.contains(base)) {
      out = elementwise(c);
    }
    if (out == null) {
      out = opaque(c);
    }
    return out;
  }

  /**
   * Operators whose result has no defined contents: uninitialized memory, and random samples (each
   * rank draws its own, so two ranks' samples are never known to be equal).
   */
  static final Set<String> UNINITIALIZED =
      Set.of(
          "aten.empty",
          "aten.empty_like",
          "aten.new_empty",
          "aten.new_empty_strided",
          "aten.empty_strided",
          "aten.rand",
          "aten.rand_like",
          "aten.randn",
          "aten.randn_like",
          "aten.randint",
          "aten.randint_like",
          "aten.randperm",
          "aten.bernoulli",
          "aten.normal",
          "aten.uniform",
          "aten.multinomial",
          "aten.poisson",
          "aten.exponential",
          "aten.geometric",
          "aten.cauchy",
          "aten.log_normal",
          "aten.random",
          "aten._fused_dropout",
          // the HLO reader refuses rng; a graph file that names it directly gets a sample's meaning
          "xla.rng");

  /**
   * Whether a node's value is undefined whatever its inputs: uninitialized memory ({@code empty},
   * {@code empty_like}, ...), a random sample ({@code rand_like}, {@code bernoulli}, ...) or a
   * dropout mask ({@code native_dropout}'s item 1, given the tuple node's target).
   */
  public static boolean isUndefinedSource(Node n, Function<String, Node> lookup) {
    if (UNINITIALIZED.contains(baseName(n.target()))) {
      return true;
    }
    if (n.target().equals("getitem")
        && n.arg(1) instanceof Arg.IntArg i
        && i.value() == 1
        && n.arg(0) instanceof Arg.NodeRef r) {
      Node tuple = lookup.apply(r.name());
      return tuple != null && baseName(tuple.target()).equals("aten.native_dropout");
    }
    return false;
  }

  /**
   * Calls whose value depends on their tensor arguments' shapes and dtypes only, not on their
   * values.
   */
  private static final Set<String> SHAPES_ONLY =
      Set.of(
          "aten.ones_like",
          "aten.zeros_like",
          "aten.full_like",
          "aten.new_zeros",
          "aten.new_ones",
          "aten.new_full");

  /**
   * Whether a call's value depends on its tensor arguments' shapes and dtypes only ({@code
   * ones_like}, ...).
   */
  public static boolean readsShapesOnly(String target) {
    return SHAPES_ONLY.contains(baseName(target));
  }

  /** The term of a {@code get_attr} constant whose value the graph records ({@code meta.value}). */
  public static int constant(Node getAttr, TermBuilder b) {
    TypeInfo t = typeOf(getAttr.type(), getAttr);
    int s =
        b.add(
            Op.SCALAR,
            new long[] {
              Double.doubleToLongBits(Call.canonical(getAttr.meta().value())), t.dtype()
            });
    return t.rank() == 0 ? s : b.add(Op.EXPAND, t.shape(), s);
  }

  /** {@code aten.add.Tensor} to {@code aten.add}; a target without overload is its own base. */
  static String baseName(String target) {
    int first = target.indexOf('.');
    int last = target.lastIndexOf('.');
    return first >= 0 && last > first ? target.substring(0, last) : target;
  }

  /**
   * ATen operators known to be element-wise (each output element depends only on the elements at
   * the same position of its tensor operands), for which the core language has no operator of its
   * own: they become {@link Op#EW1} or {@link Op#EW2}, so every element-wise lemma applies.
   */
  static final Set<String> ELEMENTWISE =
      Set.of(
          "aten.gelu_backward",
          "aten.silu_backward",
          "aten.sigmoid_backward",
          "aten.tanh_backward",
          "aten.threshold_backward",
          "aten.native_dropout_backward",
          "aten.hardtanh_backward",
          "aten.erf",
          "aten.erfc",
          "aten.sin",
          "aten.cos",
          "aten.tan",
          "aten.isfinite",
          "aten.acos",
          "aten.acosh",
          "aten.asin",
          "aten.asinh",
          "aten.atan",
          "aten.atanh",
          "aten.cosh",
          "aten.sinh",
          "aten.log10",
          "aten.log1p",
          "aten.expm1",
          "aten.floor",
          "aten.ceil",
          "aten.round",
          "aten.sign",
          "aten.trunc",
          "aten.square",
          "aten.log2",
          "aten.exp2",
          "aten.hardtanh",
          "aten.elu",
          "aten.leaky_relu",
          "aten.softplus",
          "aten.mish",
          "aten.hardswish",
          "aten.hardsigmoid",
          "aten.clamp",
          "aten.clamp_min",
          "aten.clamp_max",
          "aten.remainder",
          "aten.fmod",
          "aten.atan2",
          "aten.isnan",
          "aten.isinf",
          "aten.nan_to_num",
          "aten.logical_xor");

  /**
   * Gradients of element-wise activations, {@code f_backward(grad, x, ...)}: the incoming gradient
   * times the derivative at x (or at the saved output), so they are linear in the gradient.
   */
  static final Set<String> LINEAR_IN_GRAD =
      Set.of(
          "aten.gelu_backward",
          "aten.silu_backward",
          "aten.sigmoid_backward",
          "aten.tanh_backward",
          "aten.threshold_backward",
          "aten.native_dropout_backward",
          "aten.hardtanh_backward");

  /**
   * An element-wise call with one or two tensor operands (broadcast to the result's shape); its
   * target and other arguments identify the function. Null when it has more tensor operands. An
   * activation's gradient ({@link #LINEAR_IN_GRAD}) is the gradient times the derivative, an
   * element-wise function of the other operand alone, so every law of products applies to it.
   */
  private int[] elementwise(Call c) {
    Node node = c.node;
    List<Integer> tensors = new ArrayList<>();
    String sig = signature(c, tensors);
    if (tensors.isEmpty() || tensors.size() > 2 || node.type() == null) {
      return null;
    }
    TypeInfo result = declaredType(node);
    if (tensors.size() == 2
        && LINEAR_IN_GRAD.contains(baseName(node.target()))
        && c.isTensor(0, "grad_output")) {
      // the derivative: the call with the gradient left out, a function of the other operand
      int id =
          table.opaque(
              node.target(),
              "derivative of " + sig + " in $0",
              atUnitGradient(arguments(node)),
              TypeInfo.tensor(new long[0], result.dtype()));
      int derivative = c.b.add(Op.EW1, new long[] {id}, c.expandTo(tensors.get(1), result.shape()));
      return new int[] {
        c.b.add(Op.MUL, new long[0], c.expandTo(tensors.get(0), result.shape()), derivative)
      };
    }
    String base = baseName(node.target());
    Integer known =
        tensors.size() == 1
            ? c.finitenessTest(base.substring(base.lastIndexOf('.') + 1), tensors.get(0))
            : null;
    if (known != null) {
      return new int[] {c.expandTo(known, result.shape())};
    }
    // the function is its target, its other arguments and its dtype, whatever the shape
    int id =
        table.opaque(
            node.target(), sig, arguments(node), TypeInfo.tensor(new long[0], result.dtype()));
    int[] kids = new int[tensors.size()];
    for (int i = 0; i < kids.length; i++) {
      kids[i] = c.expandTo(tensors.get(i), result.shape());
    }
    return new int[] {c.b.add(kids.length == 1 ? Op.EW1 : Op.EW2, new long[] {id}, kids)};
  }

  /** An unknown call: an opaque operator over its tensor arguments. */
  private int[] opaque(Call c) {
    Node node = c.node;
    List<Integer> children = new ArrayList<>();
    String sig = signature(c, children);
    TypeInfo result = declaredType(node);
    int op = table.opaque(node.target(), sig, arguments(node), result);
    int[] kids = children.stream().mapToInt(Integer::intValue).toArray();
    int h = c.b.add(op, new long[0], kids);
    if (!result.isTuple()) {
      return new int[] {h};
    }
    int[] items = new int[result.items().size()];
    for (int i = 0; i < items.length; i++) {
      items[i] = result.items().get(i) == null ? -1 : c.b.add(Op.ITEM, new long[] {i}, h);
    }
    return items;
  }

  /**
   * The call as text with its tensor arguments replaced by {@code $0, $1, ...} (their handles are
   * appended to {@code tensors}): what identifies the function it computes of them.
   */
  private static String signature(Call c, List<Integer> tensors) {
    StringBuilder sig = new StringBuilder(c.node.target()).append('(');
    boolean first = true;
    for (Arg a : c.node.args()) {
      sig.append(first ? "" : ", ");
      first = false;
      signature(a, c, tensors, sig);
    }
    for (var e : c.node.kwargs().entrySet()) {
      sig.append(first ? "" : ", ").append(e.getKey()).append('=');
      first = false;
      signature(e.getValue(), c, tensors, sig);
    }
    return sig.append(')').toString();
  }

  private static void signature(Arg a, Call c, List<Integer> children, StringBuilder sig) {
    if (a instanceof Arg.NodeRef r) {
      children.add(c.value(r));
      sig.append('$').append(children.size() - 1);
    } else if (a instanceof Arg.ListArg l) {
      sig.append('[');
      for (int i = 0; i < l.items().size(); i++) {
        sig.append(i == 0 ? "" : ", ");
        signature(l.items().get(i), c, children, sig);
      }
      sig.append(']');
    } else if (a instanceof Arg.IntArg v) {
      sig.append(v.value());
    } else if (a instanceof Arg.FloatArg v) {
      sig.append(v.value());
    } else if (a instanceof Arg.StrArg v) {
      sig.append('\'').append(v.value()).append('\'');
    } else if (a instanceof Arg.BoolArg v) {
      sig.append(v.value());
    } else if (a instanceof Arg.NoneArg) {
      sig.append("None");
    } else if (a instanceof Arg.DtypeArg v) {
      sig.append(v.dtype());
    } else if (a instanceof Arg.SymArg v) {
      sig.append(v.expr());
    } else {
      // device, layout and memory format do not change values
      sig.append('_');
    }
  }

  /**
   * The call's arguments as plain values ({@link OpTable.Arguments}), its tensor arguments numbered
   * in the order {@link #signature} makes them children.
   */
  private static OpTable.Arguments arguments(Node node) {
    int[] operands = {0};
    List<Object> positional = new ArrayList<>();
    for (Arg a : node.args()) {
      positional.add(plain(a, operands));
    }
    Map<String, Object> keywords = new LinkedHashMap<>();
    for (var e : node.kwargs().entrySet()) {
      keywords.put(e.getKey(), plain(e.getValue(), operands));
    }
    return new OpTable.Arguments(positional, keywords);
  }

  /**
   * The arguments of an activation's gradient {@code f_backward(grad, x, ...)} at a gradient of
   * one: its derivative as a function of x, which becomes operand 0.
   */
  private static OpTable.Arguments atUnitGradient(OpTable.Arguments args) {
    List<Object> positional = new ArrayList<>();
    args.positional().forEach(a -> positional.add(atUnitGradient(a)));
    Map<String, Object> keywords = new LinkedHashMap<>();
    args.keywords().forEach((k, a) -> keywords.put(k, atUnitGradient(a)));
    return new OpTable.Arguments(positional, keywords);
  }

  private static Object atUnitGradient(Object a) {
    if (a instanceof OpTable.Operand o) {
      return o.index() == 0 ? (Object) 1.0 : new OpTable.Operand(o.index() - 1);
    }
    return a;
  }

  private static Object plain(Arg a, int[] operands) {
    if (a instanceof Arg.NodeRef) {
      return new OpTable.Operand(operands[0]++);
    } else if (a instanceof Arg.ListArg l) {
      List<Object> items = new ArrayList<>();
      for (Arg x : l.items()) {
        items.add(plain(x, operands));
      }
      return Collections.unmodifiableList(items);
    } else if (a instanceof Arg.IntArg v) {
      return v.value();
    } else if (a instanceof Arg.FloatArg v) {
      return v.value();
    } else if (a instanceof Arg.StrArg v) {
      return v.value();
    } else if (a instanceof Arg.BoolArg v) {
      return v.value();
    } else if (a instanceof Arg.DtypeArg v) {
      return v.dtype();
    } else if (a instanceof Arg.SymArg v) {
      return v.expr();
    } else if (a instanceof Arg.DeviceArg v) {
      return v.device();
    } else if (a instanceof Arg.LayoutArg v) {
      return v.layout();
    } else if (a instanceof Arg.MemoryFormatArg v) {
      return v.format();
    }
    return null; // None
  }

  /** The type a node's meta declares, as a TypeInfo (a tuple for meta.tuple). */
  public static TypeInfo declaredType(Node node) {
    if (node.meta().tuple()) {
      List<TypeInfo> items = new ArrayList<>();
      for (TensorType t : node.meta().types()) {
        items.add(t == null ? null : typeOf(t, node));
      }
      return TypeInfo.tuple(items);
    }
    TensorType t = node.type();
    if (t == null) {
      throw new LoweringException("the node has no shape in its meta");
    }
    return typeOf(t, node);
  }

  /** Converts a declared tensor type; symbolic sizes are rejected with a clear message. */
  public static TypeInfo typeOf(TensorType t, Node node) {
    if (!t.isConcrete()) {
      throw new LoweringException(
          "its shape " + t.shape() + " has symbolic sizes, which the checker does not support yet");
    }
    int code = Dtype.code(t.dtype());
    if (code < 0) {
      throw new LoweringException("unknown dtype '" + t.dtype() + "'");
    }
    return TypeInfo.tensor(t.sizes(), code);
  }

  public static long[] dims(long[] ds, int rank, Call c) {
    long[] out = new long[ds.length];
    for (int i = 0; i < ds.length; i++) {
      out[i] = c.dim(ds[i], rank);
    }
    Arrays.sort(out);
    return out;
  }
}
