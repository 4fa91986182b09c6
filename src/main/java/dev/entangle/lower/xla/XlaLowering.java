package dev.entangle.lower.xla;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.TypeInfo;
import dev.entangle.graph.Arg;
import dev.entangle.lower.LoweringException;
import dev.entangle.lower.aten.AtenNormalizer;
import dev.entangle.lower.aten.Call;
import dev.entangle.lower.aten.LayoutLowering;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * XLA HLO instructions as the HLO importer writes them (target {@code xla.OPCODE}, the attributes
 * as kwargs): layout operations, {@code dot} (any batch and contracting dims) as a permuted,
 * reshaped {@code matmul}, element-wise arithmetic and comparisons, reductions whose reducer is
 * add, max or min from its identity, row gathers as embeddings and gathers along one axis (JAX's
 * take_along_axis) as picks, pads and updates at known offsets as concats, literals, and the custom
 * calls of AWS Neuron that transformers-neuronx emits ({@link XlaCustomCalls}). Returns null for
 * what it leaves opaque.
 */
public final class XlaLowering {
  private final OpTable table;
  private final XlaCustomCalls customCalls = new XlaCustomCalls();

  public XlaLowering(OpTable table) {
    this.table = table;
  }

  public int[] lower(String base, Call c) {
    if (!base.startsWith("xla.")) {
      return null;
    }
    String op = base.substring(4);
    if (op.equals("tuple")) {
      int[] items = new int[c.node.args().size()];
      for (int i = 0; i < items.length; i++) {
        items[i] = c.tensor(i, null);
      }
      return items;
    }
    if (op.equals("reduce")
        && c.node.kwarg("reducer") instanceof Arg.StrArg r
        && (r.value().equals("argmax") || r.value().equals("argmin"))) {
      return argReduce(c, r.value().equals("argmax"));
    }
    Integer h = single(op, c);
    return h == null ? null : new int[] {h};
  }

  /**
   * A reduce of (value, index) pairs by {@code argmax} or {@code argmin} ({@code jnp.argmax}: the
   * larger value, a NaN the largest, and of equal values the smaller index) over one dim, its
   * indices the positions along that dim and its initial values the reducer's identity (-inf or
   * +inf, and 0): the max (min) and the first position of it. Null (opaque) otherwise.
   */
  private static int[] argReduce(Call c, boolean max) {
    if (c.node.args().size() != 4
        || !(c.node.kwarg("init_values") instanceof Arg.ListArg inits)
        || inits.items().size() != 2
        || inits.items().get(0) instanceof Arg.NoneArg
        || inits.items().get(1) instanceof Arg.NoneArg) {
      return null;
    }
    int x = c.tensor(0, null);
    int positions = c.tensor(1, null);
    int dt = c.type(x).dtype();
    long[] dims = AtenNormalizer.dims(c.ints(-1, "dimensions"), c.type(x).rank(), c);
    if (dims.length != 1
        || !Dtype.isFloating(dt)
        || number(inits.items().get(0))
            != (max ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY)
        || number(inits.items().get(1)) != 0
        || !positionsAlong(c.b.known(positions), c.shape(positions), (int) dims[0])) {
      return null;
    }
    int d = (int) dims[0];
    int keys = max ? x : c.b.add(Op.NEG, new long[0], x);
    int value = c.b.add(max ? Op.RAMAX : Op.RAMIN, new long[] {0, d}, x);
    int index = c.cast(c.b.add(Op.ARGMAX, new long[] {0, d}, keys), c.type(positions).dtype());
    return new int[] {value, index};
  }

  /** Whether t holds each element's position along dim d. */
  private static boolean positionsAlong(dev.entangle.core.numeric.Tensor t, long[] shape, int d) {
    if (t == null || shape.length <= d) {
      return false;
    }
    long inner = 1;
    for (int i = d + 1; i < shape.length; i++) {
      inner *= shape[i];
    }
    for (int i = 0; i < t.numel(); i++) {
      if (t.at(i) != (i / inner) % shape[d]) {
        return false;
      }
    }
    return true;
  }

  private Integer single(String op, Call c) {
    switch (op) {
      case "constant" -> {
        return constant(c);
      }
      case "iota" -> {
        return iota(c);
      }
      case "broadcast" -> {
        return broadcast(c, c.tensor(0, null), c.ints(-1, "dimensions"), resultShape(c));
      }
      case "reshape" -> {
        return c.reshape(c.tensor(0, null), resultShape(c));
      }
      case "bitcast" -> {
        int x = c.tensor(0, null);
        return Arrays.equals(c.shape(x), resultShape(c)) && c.type(x).dtype() == declared(c).dtype()
            ? x
            : null;
      }
      case "copy" -> {
        return c.tensor(0, null);
      }
      case "transpose" -> {
        return permute(c, c.tensor(0, null), c.ints(-1, "dimensions"));
      }
      case "slice" -> {
        return slice(
            c,
            c.tensor(0, null),
            c.ints(-1, "start_indices"),
            c.ints(-1, "limit_indices"),
            c.ints(-1, "strides"));
      }
      case "concatenate" -> {
        List<Integer> parts = new ArrayList<>();
        for (int i = 0; i < c.node.args().size(); i++) {
          parts.add(c.tensor(i, null));
        }
        int d = c.dim(c.ints(-1, "dimensions")[0], c.type(parts.get(0)).rank());
        return parts.size() == 1
            ? parts.get(0)
            : c.b.add(
                Op.CONCAT, new long[] {d}, parts.stream().mapToInt(Integer::intValue).toArray());
      }
      case "dot" -> {
        return dot(c);
      }
      case "convolution" -> {
        return XlaConvolution.lower(c);
      }
      case "convert" -> {
        return c.cast(c.tensor(0, null), c.outDtype);
      }
      case "add" -> {
        return binary(c, Op.ADD);
      }
      case "subtract" -> {
        return binary(c, Op.SUB);
      }
      case "multiply" -> {
        return binary(c, Op.MUL);
      }
      case "divide" -> {
        // integer division truncates: not the core div
        return Dtype.isFloating(c.outDtype) ? binary(c, Op.DIV) : elementwise(c);
      }
      case "power" -> {
        return Dtype.isFloating(c.outDtype) ? binary(c, Op.POW) : elementwise(c);
      }
      case "maximum" -> {
        return binary(c, Op.MAXIMUM);
      }
      case "minimum" -> {
        return binary(c, Op.MINIMUM);
      }
      case "and" -> {
        return binary(c, Op.AND);
      }
      case "or" -> {
        return binary(c, Op.OR);
      }
      case "xor" -> {
        return binary(c, Op.XOR);
      }
      case "remainder", "atan2", "shift_left", "shift_right_logical", "shift_right_arithmetic" -> {
        return elementwise(c);
      }
      case "compare" -> {
        return compare(c);
      }
      case "select" -> {
        int x = c.tensor(1, null);
        long[] shape = c.shape(x);
        return c.b.add(
            Op.WHERE, new long[0], c.expandTo(c.tensor(0, null), shape), x, c.tensor(2, null));
      }
      case "clamp" -> {
        int x = c.tensor(1, null);
        long[] shape = c.shape(x);
        int lo = c.b.add(Op.MAXIMUM, new long[0], x, c.expandTo(c.tensor(0, null), shape));
        return c.b.add(Op.MINIMUM, new long[0], lo, c.expandTo(c.tensor(2, null), shape));
      }
      case "exponential" -> {
        return unary(c, Op.EXP);
      }
      case "log" -> {
        return unary(c, Op.LOG);
      }
      case "logistic" -> {
        return unary(c, Op.SIGMOID);
      }
      case "sqrt" -> {
        return unary(c, Op.SQRT);
      }
      case "rsqrt" -> {
        return unary(c, Op.RSQRT);
      }
      case "tanh" -> {
        return unary(c, Op.TANH);
      }
      case "negate" -> {
        return unary(c, Op.NEG);
      }
      case "abs" -> {
        return unary(c, Op.ABS);
      }
      case "not" -> {
        return unary(c, Op.NOT);
      }
      case "sine",
          "cosine",
          "tan",
          "floor",
          "ceil",
          "sign",
          "erf",
          "exponential_minus_one",
          "log_plus_one",
          "round_nearest_afz",
          "round_nearest_even",
          "cbrt",
          "is_finite",
          "popcnt",
          "count_leading_zeros",
          "reduce_precision" -> {
        return elementwise(c);
      }
      case "bitcast_convert" -> {
        int x = c.tensor(0, null);
        long[] out = declared(c).shape();
        if (!Arrays.equals(c.shape(x), out)) {
          throw new LoweringException(
              "bitcast-convert from "
                  + Dtype.name(c.type(x).dtype())
                  + Arrays.toString(c.shape(x))
                  + " to "
                  + Dtype.name(c.outDtype)
                  + Arrays.toString(out)
                  + " changes the element width (each element's bits become several elements, or"
                  + " several become one), which the checker does not support; only a"
                  + " bitcast-convert between types of one width is read");
        }
        return elementwise(c);
      }
      case "reduce" -> {
        return reduce(c);
      }
      case "reduce_window" -> {
        return runningSum(c);
      }
      case "gather" -> {
        return gather(c);
      }
      case "scatter" -> {
        return scatter(c);
      }
      case "pad" -> {
        return pad(c);
      }
      case "dynamic_update_slice" -> {
        return c.node.kwarg("start_indices") == null ? null : updateSlice(c);
      }
      case "custom_call" -> {
        return customCalls.lower(c);
      }
      default -> {
        return null;
      }
    }
  }

  /**
   * A reduce-window that is a running sum along one dim, as {@code jnp.cumsum} lowers: the sum,
   * from 0, of a window as long as that dim, padded by its length less one before and nothing
   * after, stride and dilation one, and a window of one element along every other dim. Null
   * (opaque) for any other window or reducer.
   */
  private static Integer runningSum(Call c) {
    if (c.node.args().size() != 2
        || !(c.node.kwarg("reducer") instanceof Arg.StrArg r)
        || !r.value().equals("add")
        || !(c.node.kwarg("init_values") instanceof Arg.ListArg inits)
        || inits.items().size() != 1
        || inits.items().get(0) instanceof Arg.NoneArg
        || number(inits.items().get(0)) != 0
        || !(c.node.kwarg("window") instanceof Arg.StrArg)) {
      return null;
    }
    int x = c.tensor(0, null);
    long[] shape = c.shape(x);
    XlaConvolution.Window w = XlaConvolution.window(c, shape.length);
    if (w == null) {
      return null;
    }
    int along = -1;
    for (int d = 0; d < shape.length; d++) {
      boolean single = w.size()[d] == 1 && w.lo()[d] == 0;
      boolean running = w.size()[d] == shape[d] && w.lo()[d] == shape[d] - 1;
      if (w.stride()[d] != 1 || w.dilation()[d] != 1 || w.hi()[d] != 0 || !(single || running)) {
        return null;
      }
      if (running && !single) {
        if (along >= 0) {
          return null;
        }
        along = d;
      }
    }
    return along < 0 ? x : c.cumsum(x, along);
  }

  private static TypeInfo declared(Call c) {
    return AtenNormalizer.declaredType(c.node);
  }

  /**
   * The result shape an instruction defines by its type alone (broadcast, reshape, iota, literals):
   * its {@code shape} argument, which the importer writes, so that the recorded type is checked
   * against it; the recorded type where there is none.
   */
  private static long[] resultShape(Call c) {
    return c.node.kwarg("shape") != null ? c.ints(-1, "shape") : declared(c).shape();
  }

  private static int unary(Call c, Op op) {
    return c.b.add(op, new long[0], c.tensor(0, null));
  }

  private static int binary(Call c, Op op) {
    return c.b.add(op, new long[0], c.tensor(0, null), c.tensor(1, null));
  }

  /** An element-wise function the core language has no operator for: identified by its call. */
  private Integer elementwise(Call c) {
    int n = c.node.args().size();
    if (n < 1 || n > 2) {
      return null;
    }
    if (n == 1) {
      String target = c.node.target();
      Integer known =
          c.finitenessTest(target.substring(target.indexOf('.') + 1), c.tensor(0, null));
      if (known != null) {
        return known;
      }
    }
    List<Object> operands = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      operands.add(new OpTable.Operand(i));
    }
    int id =
        table.opaque(
            c.node.target(),
            c.node.target() + c.node.kwargs(),
            new OpTable.Arguments(operands, Map.of()),
            TypeInfo.tensor(new long[0], c.outDtype));
    int[] kids = new int[n];
    for (int i = 0; i < n; i++) {
      kids[i] = c.tensor(i, null);
    }
    return c.b.add(n == 1 ? Op.EW1 : Op.EW2, new long[] {id}, kids);
  }

  private Integer compare(Call c) {
    String type = c.node.kwarg("type") instanceof Arg.StrArg s ? s.value() : "";
    String dir = c.node.kwarg("direction") instanceof Arg.StrArg s ? s.value() : "";
    if (type.equals("TOTALORDER")) {
      return elementwise(c); // orders NaNs and -0, unlike the core comparisons
    }
    Op op =
        switch (dir) {
          case "EQ" -> Op.EQ;
          case "NE" -> Op.NE;
          case "LT" -> Op.LT;
          case "LE" -> Op.LE;
          case "GT" -> Op.GT;
          case "GE" -> Op.GE;
          default ->
              throw new LoweringException(
                  "compare needs a direction (EQ, NE, LT, LE, GT, GE), got '" + dir + "'");
        };
    return binary(c, op);
  }

  /**
   * A literal: a scalar, a listed array (small ones built from scalars), else an opaque value of
   * its own.
   */
  private static Integer constant(Call c) {
    TypeInfo t = TypeInfo.tensor(resultShape(c), declared(c).dtype());
    Arg value = c.node.kwarg("value");
    if (value != null) {
      return c.filled(number(value), t.dtype(), t.shape());
    }
    if (!(c.node.kwarg("values") instanceof Arg.ListArg list)) {
      return null;
    }
    double[] v = list.items().stream().mapToDouble(XlaLowering::number).toArray();
    if (v.length != t.numel()) {
      throw new LoweringException(
          "a literal of " + v.length + " values for " + t.numel() + " elements");
    }
    return literal(c, v, t);
  }

  /**
   * The listed values {@code v} of type {@code t}: one value filled; integers in arithmetic
   * progression an arange ({@link #progression}); a block repeated along leading dims (a folded
   * broadcast, as a mask for every head) the block's literal, broadcast; up to 64 values a concat
   * of scalars; else null (opaque).
   */
  private static Integer literal(Call c, double[] v, TypeInfo t) {
    boolean same = Arrays.stream(v).allMatch(x -> Double.compare(x, v[0]) == 0);
    if (same && v.length > 0) {
      return c.filled(v[0], t.dtype(), t.shape());
    }
    Integer range = progression(c, v, t);
    if (range != null) {
      return range;
    }
    Integer triangle = triangle(c, v, t);
    if (triangle != null) {
      return triangle;
    }
    long[] shape = t.shape();
    int period = 1;
    for (int k = shape.length - 1; k > 0; k--) {
      period *= (int) shape[k];
      if (period < v.length && repeats(v, period)) {
        long[] inner = Arrays.copyOfRange(shape, k, shape.length);
        Integer block = literal(c, Arrays.copyOf(v, period), TypeInfo.tensor(inner, t.dtype()));
        if (block == null) {
          return null;
        }
        return c.expandTo(block, shape);
      }
    }
    if (v.length > 64 || v.length == 0) {
      return null;
    }
    int[] parts = new int[v.length];
    for (int i = 0; i < v.length; i++) {
      parts[i] = c.filled(v[i], t.dtype(), new long[] {1});
    }
    return c.reshape(
        parts.length == 1 ? parts[0] : c.b.add(Op.CONCAT, new long[] {0}, parts), t.shape());
  }

  /**
   * A 2-d boolean literal that holds where column - row is at least k, or at most k (a causal mask
   * folded by the compiler): that comparison of aranges, as {@code triu} and {@code tril} are
   * lowered; null for any other literal.
   */
  private static Integer triangle(Call c, double[] v, TypeInfo t) {
    long[] shape = t.shape();
    if (t.dtype() != Dtype.BOOL.code() || shape.length != 2 || v.length < 2) {
      return null;
    }
    int rows = (int) shape[0];
    int cols = (int) shape[1];
    for (boolean upper : new boolean[] {true, false}) {
      for (int k = -rows; k <= cols; k++) {
        if (triangular(v, rows, cols, k, upper)) {
          return c.triangle(rows, cols, k, upper, Dtype.INT32.code());
        }
      }
    }
    return null;
  }

  /** Whether v[i, j] is (j - i >= k) for {@code upper}, else (j - i <= k). */
  private static boolean triangular(double[] v, int rows, int cols, int k, boolean upper) {
    for (int i = 0; i < rows; i++) {
      for (int j = 0; j < cols; j++) {
        boolean want = upper ? j - i >= k : j - i <= k;
        if ((v[i * cols + j] != 0) != want) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * A literal of integers in arithmetic progression along its last dims and repeated along the
   * others (in row-major order), as the partitioner writes a shard's positions: an arange, reshaped
   * and broadcast; null for any other literal.
   */
  private static Integer progression(Call c, double[] v, TypeInfo t) {
    long[] shape = t.shape();
    if (v.length < 2 || Dtype.isFloating(t.dtype()) || t.dtype() == Dtype.BOOL.code()) {
      return null;
    }
    int period = 1;
    for (int k = shape.length - 1; k >= 0; k--) {
      period *= (int) shape[k];
      if (period < 2 || !repeats(v, period) || !arithmetic(v, period)) {
        continue;
      }
      long start = (long) v[0];
      long by = (long) (v[1] - v[0]);
      int range = c.b.add(Op.ARANGE, new long[] {start, start + by * period, by, t.dtype()});
      long[] inner = shape.clone();
      for (int i = 0; i < k; i++) {
        inner[i] = 1;
      }
      int shaped = c.reshape(range, inner);
      return Arrays.equals(inner, shape) ? shaped : c.b.add(Op.EXPAND, shape, shaped);
    }
    return null;
  }

  /** Whether {@code v} is its first {@code period} values over and over. */
  private static boolean repeats(double[] v, int period) {
    for (int i = period; i < v.length; i++) {
      if (Double.compare(v[i], v[i - period]) != 0) {
        return false;
      }
    }
    return true;
  }

  /** Whether the first {@code n} values are integers in arithmetic progression, not all equal. */
  private static boolean arithmetic(double[] v, int n) {
    double step = v[1] - v[0];
    for (int i = 0; i < n; i++) {
      if (v[i] != v[0] + i * step || v[i] != Math.rint(v[i])) {
        return false;
      }
    }
    return step != 0;
  }

  public static double number(Arg a) {
    if (a instanceof Arg.IntArg i) {
      return i.value();
    }
    if (a instanceof Arg.FloatArg f) {
      return f.value();
    }
    if (a instanceof Arg.BoolArg b) {
      return b.value() ? 1 : 0;
    }
    throw new LoweringException("expected a number, got " + a);
  }

  private static int iota(Call c) {
    TypeInfo t = declared(c);
    long[] shape = resultShape(c);
    int d = c.dim(c.integer(-1, "iota_dimension", null), shape.length);
    int range = c.b.add(Op.ARANGE, new long[] {0, shape[d], 1, t.dtype()});
    long[] lifted = new long[shape.length];
    Arrays.fill(lifted, 1);
    lifted[d] = shape[d];
    return c.expandTo(c.reshape(range, lifted), shape);
  }

  /** HLO broadcast: operand dim i becomes output dim dims[i] (size 1 or equal), the rest repeat. */
  public static int broadcast(Call c, int x, long[] dims, long[] shape) {
    long[] in = c.shape(x);
    if (dims.length != in.length) {
      throw new LoweringException(
          "broadcast maps " + dims.length + " dims of a " + in.length + "-d operand");
    }
    Integer[] order = new Integer[dims.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(dims[a], dims[b]));
    long[] perm = new long[order.length];
    for (int i = 0; i < order.length; i++) {
      perm[i] = order[i];
    }
    int y = permute(c, x, perm);
    long[] lifted = new long[shape.length];
    Arrays.fill(lifted, 1);
    for (int i = 0; i < order.length; i++) {
      int out = (int) dims[order[i]];
      if (out < 0 || out >= shape.length) {
        throw new LoweringException(
            "broadcast to dim " + out + " of a " + shape.length + "-d result");
      }
      lifted[out] = in[order[i]];
    }
    int lead = 0;
    while (lead < lifted.length && lifted[lead] == 1) {
      lead++; // expand adds leading dims itself
    }
    return c.expandTo(c.reshape(y, Arrays.copyOfRange(lifted, lead, lifted.length)), shape);
  }

  public static int permute(Call c, int x, long[] perm) {
    for (int i = 0; i < perm.length; i++) {
      if (perm[i] != i) {
        return c.b.add(Op.PERMUTE, perm, x);
      }
    }
    return x;
  }

  private static int slice(Call c, int x, long[] start, long[] limit, long[] strides) {
    long[] s = c.shape(x);
    if (start.length != s.length || limit.length != s.length) {
      throw new LoweringException(
          "slice of a " + s.length + "-d operand with " + start.length + " ranges");
    }
    int y = x;
    for (int d = 0; d < s.length; d++) {
      long step = strides == null || strides.length <= d ? 1 : strides[d];
      if (start[d] < 0 || limit[d] > s[d] || start[d] > limit[d]) {
        throw new LoweringException(
            "slice [" + start[d] + ":" + limit[d] + "] of dim " + d + " of size " + s[d]);
      }
      y = LayoutLowering.slice(c, y, d, start[d], limit[d], step);
    }
    return y;
  }

  /**
   * dot: lhs as [batch..., free..., contracting...] and rhs as [batch..., contracting..., free...],
   * each flattened to a matrix per batch, multiplied, the result unflattened to [batch..., lhs
   * free..., rhs free...]; operands of another dtype than the result are converted first.
   */
  private static int dot(Call c) {
    int lhs = c.tensor(0, null);
    int rhs = c.tensor(1, null);
    long[] lb = dims(c, "lhs_batch_dims");
    long[] lc = dims(c, "lhs_contracting_dims");
    long[] rb = dims(c, "rhs_batch_dims");
    long[] rc = dims(c, "rhs_contracting_dims");
    long[] ls = c.shape(lhs);
    long[] rs = c.shape(rhs);
    if (lb.length != rb.length || lc.length != rc.length) {
      throw new LoweringException(
          "dot with "
              + lb.length
              + "/"
              + rb.length
              + " batch and "
              + lc.length
              + "/"
              + rc.length
              + " contracting dims");
    }
    long[] lf = free(ls.length, lb, lc);
    long[] rf = free(rs.length, rb, rc);
    int l = permute(c, lhs, concat(lb, lf, lc));
    int r = permute(c, rhs, concat(rb, rc, rf));
    long[] batch = sizes(ls, lb);
    long m = prod(sizes(ls, lf));
    long k = prod(sizes(ls, lc));
    long n = prod(sizes(rs, rf));
    if (k != prod(sizes(rs, rc)) || !Arrays.equals(batch, sizes(rs, rb))) {
      throw new LoweringException(
          "dot of "
              + Arrays.toString(ls)
              + " and "
              + Arrays.toString(rs)
              + ": contracting or batch sizes differ");
    }
    int dt = c.outDtype;
    l = c.cast(c.reshape(l, concat(batch, new long[] {m, k})), dt);
    r = c.cast(c.reshape(r, concat(batch, new long[] {k, n})), dt);
    int p = c.b.add(Op.MATMUL, new long[0], l, r);
    return c.reshape(p, concat(batch, concat(sizes(ls, lf), sizes(rs, rf))));
  }

  private static long[] dims(Call c, String key) {
    return c.node.kwarg(key) == null ? new long[0] : c.ints(-1, key);
  }

  private static long[] free(int rank, long[] batch, long[] contracting) {
    List<Long> out = new ArrayList<>();
    for (long d = 0; d < rank; d++) {
      final long dd = d;
      if (Arrays.stream(batch).noneMatch(x -> x == dd)
          && Arrays.stream(contracting).noneMatch(x -> x == dd)) {
        out.add(d);
      }
    }
    return out.stream().mapToLong(Long::longValue).toArray();
  }

  private static long[] sizes(long[] shape, long[] dims) {
    long[] out = new long[dims.length];
    for (int i = 0; i < dims.length; i++) {
      if (dims[i] < 0 || dims[i] >= shape.length) {
        throw new LoweringException("dim " + dims[i] + " of a " + shape.length + "-d operand");
      }
      out[i] = shape[(int) dims[i]];
    }
    return out;
  }

  public static long[] concat(long[]... parts) {
    return Arrays.stream(parts).flatMapToLong(Arrays::stream).toArray();
  }

  private static long prod(long[] v) {
    long p = 1;
    for (long x : v) {
      p *= x;
    }
    return p;
  }

  /**
   * reduce of one array by add, max or min whose initial value is that reducer's identity (0, -inf,
   * +inf, or the integer extremes), or of booleans by or (from false) or and (from true): the core
   * sum, max or min over the dims. Any other initial value is applied an unspecified number of
   * times by XLA, so such reduces stay opaque.
   */
  private static Integer reduce(Call c) {
    if (c.node.args().size() != 2
        || !(c.node.kwarg("reducer") instanceof Arg.StrArg r)
        || !(c.node.kwarg("init_values") instanceof Arg.ListArg inits)
        || inits.items().size() != 1
        || inits.items().get(0) instanceof Arg.NoneArg) {
      return null;
    }
    int x = c.tensor(0, null);
    double init = number(inits.items().get(0));
    int dt = c.type(x).dtype();
    Op op =
        switch (r.value()) {
          case "add" -> init == 0 ? Op.RSUM : null;
          case "max" -> init == lowest(dt) ? Op.RAMAX : null;
          case "min" ->
              init == -lowest(dt) || (!Dtype.isFloating(dt) && init == highest(dt))
                  ? Op.RAMIN
                  : null;
          // on booleans or is the max and and the min (XLA's any and all, as a gather's
          // out-of-range mask reduces its index vector)
          case "or" -> "bool".equals(Dtype.name(dt)) && init == 0 ? Op.RAMAX : null;
          case "and" -> "bool".equals(Dtype.name(dt)) && init == 1 ? Op.RAMIN : null;
          default -> null;
        };
    if (op == null) {
      return null;
    }
    long[] dims = AtenNormalizer.dims(c.ints(-1, "dimensions"), c.type(x).rank(), c);
    if (dims.length == 0) {
      return x;
    }
    long[] attrs = new long[dims.length + 1];
    System.arraycopy(dims, 0, attrs, 1, dims.length);
    return c.b.add(op, attrs, x);
  }

  private static double lowest(int dtype) {
    return switch (Dtype.name(dtype)) {
      case "int8" -> Byte.MIN_VALUE;
      case "int16" -> Short.MIN_VALUE;
      case "int32" -> Integer.MIN_VALUE;
      case "int64" -> Long.MIN_VALUE;
      case "uint8", "uint16", "uint32", "uint64", "bool" -> 0;
      default -> Double.NEGATIVE_INFINITY;
    };
  }

  private static double highest(int dtype) {
    return switch (Dtype.name(dtype)) {
      case "int8" -> Byte.MAX_VALUE;
      case "int16" -> Short.MAX_VALUE;
      case "int32" -> Integer.MAX_VALUE;
      case "int64" -> Long.MAX_VALUE;
      case "uint8" -> 255;
      case "uint16" -> 65535;
      case "uint32" -> 4294967295.0;
      case "bool" -> 1;
      default -> Double.POSITIVE_INFINITY;
    };
  }

  /**
   * A gather of whole rows of dim 0 ({@code start_index_map={0}}, slice sizes 1 then full, offset
   * dims last): an embedding lookup of the operand flattened to [rows, rest], at the indices
   * clamped to [0, rows - 1] as XLA clamps them (a partitioned gather looks up every index in its
   * shard, clamped, and masks the rows of the indices outside it).
   */
  private static Integer gather(Call c) {
    int x = c.tensor(0, null);
    int idx = c.tensor(1, null);
    long[] xs = c.shape(x);
    long[] is = c.shape(idx);
    long[] startMap = dims(c, "start_index_map");
    long[] collapsed = dims(c, "collapsed_slice_dims");
    long[] offsets = dims(c, "offset_dims");
    long[] sizes = dims(c, "slice_sizes");
    long ivd = c.integer(-1, "index_vector_dim", (long) is.length);
    if (c.node.kwarg("operand_batching_dims") instanceof Arg.ListArg b && !b.items().isEmpty()) {
      return alongAxis(c, x, idx, startMap, collapsed, offsets, sizes, ivd);
    }
    if (!Arrays.equals(startMap, new long[] {0})
        || sizes.length != xs.length
        || xs.length < 1
        || sizes[0] != 1
        || !(collapsed.length == 0 || Arrays.equals(collapsed, new long[] {0}))
        || !integral(c, idx)) {
      return null;
    }
    for (int i = 1; i < xs.length; i++) {
      if (sizes[i] != xs[i]) {
        return null;
      }
    }
    List<Long> batch = new ArrayList<>();
    for (int i = 0; i < is.length; i++) {
      if (i == ivd) {
        if (is[i] != 1) {
          return null;
        }
      } else {
        batch.add(is[i]);
      }
    }
    int nOffsets = xs.length - collapsed.length;
    if (offsets.length != nOffsets) {
      return null;
    }
    for (int i = 0; i < nOffsets; i++) {
      if (offsets[i] != batch.size() + i) {
        return null;
      }
    }
    long rest = 1;
    for (int i = 1; i < xs.length; i++) {
      rest *= xs[i];
    }
    int table2 = c.reshape(x, new long[] {xs[0], rest});
    long[] idShape = batch.stream().mapToLong(Long::longValue).toArray();
    int ids = c.reshape(idx, idShape);
    int idType = c.type(idx).dtype();
    ids =
        c.b.add(
            Op.MINIMUM,
            new long[0],
            c.b.add(Op.MAXIMUM, new long[0], ids, c.filled(0, idType, idShape)),
            c.filled(xs[0] - 1, idType, idShape));
    List<Long> out = new ArrayList<>(batch);
    for (int i = collapsed.length; i < xs.length; i++) {
      out.add(i == 0 ? 1 : xs[i]);
    }
    return c.reshape(
        c.b.add(Op.EMBEDDING, new long[0], table2, ids),
        out.stream().mapToLong(Long::longValue).toArray());
  }

  /**
   * A scatter that adds one update per index along one axis a of the operand, every other operand
   * dim matched to the index dim at the same place ({@code input_batching_dims}, {@code
   * scatter_indices_batching_dims}): the backward of JAX's {@code take_along_axis}. It is torch's
   * {@code scatter_add} along a: the operand plus each update at the position its index names; an
   * index outside the operand adds nothing, as XLA drops such an update. Other scatters stay
   * opaque.
   */
  private static Integer scatter(Call c) {
    if (c.node.args().size() != 3
        || !(c.node.kwarg("to_apply") instanceof Arg.StrArg f)
        || !ADDS_TWO.matcher(f.value()).matches()) {
      return null;
    }
    int x = c.tensor(0, null);
    int idx = c.tensor(1, null);
    int updates = c.tensor(2, null);
    long[] xs = c.shape(x);
    long[] is = c.shape(idx);
    long[] toOperand = dims(c, "scatter_dims_to_operand_dims");
    long[] operandBatch = dims(c, "input_batching_dims");
    long[] indexBatch = dims(c, "scatter_indices_batching_dims");
    long ivd = c.integer(-1, "index_vector_dim", (long) is.length);
    if (dims(c, "update_window_dims").length != 0
        || toOperand.length != 1
        || !Arrays.equals(dims(c, "inserted_window_dims"), toOperand)
        || operandBatch.length != xs.length - 1
        || !Arrays.equals(operandBatch, indexBatch)
        || !(ivd == is.length || ivd == is.length - 1 && is[(int) ivd] == 1)
        || is.length - (ivd < is.length ? 1 : 0) != xs.length
        || !integral(c, idx)) {
      return null;
    }
    int axis = (int) toOperand[0];
    if (Arrays.stream(operandBatch).anyMatch(d -> d == axis)) {
      return null;
    }
    long[] idShape = Arrays.copyOf(is, xs.length);
    if (!Arrays.equals(idShape, c.shape(updates))) {
      return null;
    }
    return LayoutLowering.scatterAdd(c, x, axis, c.reshape(idx, idShape), updates);
  }

  /** Whether a gather's or scatter's indices are integers (not bools, not floats). */
  private static boolean integral(Call c, int idx) {
    int dt = c.type(idx).dtype();
    return dt != Dtype.BOOL.code() && !Dtype.isFloating(dt);
  }

  /** A computation that adds its two scalar parameters, as the importer writes it. */
  private static final Pattern ADDS_TWO =
      Pattern.compile(
          "\\{%0 = [a-z0-9]+\\[\\] parameter\\(0\\); %1 = [a-z0-9]+\\[\\] parameter\\(1\\);"
              + " %2 = [a-z0-9]+\\[\\] add\\(%[01], %[01]\\)\\}");

  /**
   * A gather of one element along one axis a of the operand per index, every other operand dim
   * matched to an index dim ({@code operand_batching_dims}, {@code start_indices_batching_dims}):
   * JAX's {@code take_along_axis}. {@code out[p] = x[p's batching dims..., clamp(idx[p])]} with the
   * index clamped to [0, size of a - 1] as XLA clamps it: a pick from the operand with a moved
   * last, its batching dims in the index's order and broadcast over the index's other dims.
   */
  private static Integer alongAxis(
      Call c,
      int x,
      int idx,
      long[] startMap,
      long[] collapsed,
      long[] offsets,
      long[] sizes,
      long ivd) {
    long[] xs = c.shape(x);
    long[] is = c.shape(idx);
    long[] operandBatch = dims(c, "operand_batching_dims");
    long[] indexBatch = dims(c, "start_indices_batching_dims");
    if (startMap.length != 1
        || !Arrays.equals(collapsed, startMap)
        || offsets.length != 0
        || operandBatch.length != xs.length - 1
        || indexBatch.length != operandBatch.length
        || Arrays.stream(sizes).anyMatch(v -> v != 1)
        || (ivd < is.length && is[(int) ivd] != 1)
        || !integral(c, idx)) {
      return null;
    }
    int axis = (int) startMap[0];
    long[] outShape = new long[ivd < is.length ? is.length - 1 : is.length];
    int[] outPos = new int[is.length]; // index dim -> output dim (-1 for the index vector dim)
    for (int i = 0, o = 0; i < is.length; i++) {
      outPos[i] = i == ivd ? -1 : o;
      if (i != ivd) {
        outShape[o++] = is[i];
      }
    }
    // the operand's batching dims ordered by the output dim they match, then the axis
    Integer[] order = new Integer[operandBatch.length];
    for (int i = 0; i < order.length; i++) {
      order[i] = i;
      if (operandBatch[i] == axis || indexBatch[i] == ivd || indexBatch[i] >= is.length) {
        return null;
      }
    }
    Arrays.sort(
        order, (p, q) -> Integer.compare(outPos[(int) indexBatch[p]], outPos[(int) indexBatch[q]]));
    long[] perm = new long[xs.length];
    long[] spread = new long[outShape.length + 1];
    Arrays.fill(spread, 1);
    for (int i = 0; i < order.length; i++) {
      perm[i] = operandBatch[order[i]];
      int o = outPos[(int) indexBatch[order[i]]];
      if (xs[(int) perm[i]] != outShape[o]) {
        return null;
      }
      spread[o] = outShape[o];
    }
    perm[xs.length - 1] = axis;
    spread[outShape.length] = xs[axis];
    int moved = LayoutLowering.permute(c, x, perm);
    boolean onePerRow = true; // every index dim that is not a batching dim has size 1
    for (int o = 0; o < outShape.length; o++) {
      onePerRow &= spread[o] == outShape[o] || outShape[o] == 1;
    }
    long[] rows = outShape;
    int table = moved;
    if (onePerRow) {
      rows = Arrays.copyOf(c.shape(moved), xs.length - 1);
    } else {
      long[] full = Arrays.copyOf(outShape, outShape.length + 1);
      full[outShape.length] = xs[axis];
      table = c.expandTo(c.reshape(moved, spread), full);
    }
    int idType = c.type(idx).dtype();
    int ids = c.reshape(idx, rows);
    ids =
        c.b.add(
            Op.MINIMUM,
            new long[0],
            c.b.add(Op.MAXIMUM, new long[0], ids, c.filled(0, idType, rows)),
            c.filled(xs[axis] - 1, idType, rows));
    return c.reshape(c.b.add(Op.PICK, new long[0], table, ids), outShape);
  }

  /**
   * pad without interior padding: the padding value's blocks concatenated around (negative: sliced
   * off).
   */
  private static Integer pad(Call c) {
    int x = c.tensor(0, null);
    int value = c.tensor(1, null);
    long[] lo = c.ints(-1, "edge_padding_low");
    long[] hi = c.ints(-1, "edge_padding_high");
    long[] interior = c.ints(-1, "interior_padding");
    if (Arrays.stream(interior).anyMatch(v -> v != 0) || c.type(value).rank() != 0) {
      return null;
    }
    int y = x;
    for (int d = 0; d < lo.length; d++) {
      long n = c.shape(y)[d];
      if (lo[d] < 0 || hi[d] < 0) {
        y = LayoutLowering.slice(c, y, d, Math.max(0, -lo[d]), n - Math.max(0, -hi[d]), 1);
      }
      List<Integer> parts = new ArrayList<>();
      if (lo[d] > 0) {
        parts.add(block(c, value, c.shape(y), d, lo[d]));
      }
      parts.add(y);
      if (hi[d] > 0) {
        parts.add(block(c, value, c.shape(y), d, hi[d]));
      }
      y =
          parts.size() == 1
              ? y
              : c.b.add(
                  Op.CONCAT, new long[] {d}, parts.stream().mapToInt(Integer::intValue).toArray());
    }
    return y;
  }

  private static int block(Call c, int value, long[] shape, int d, long size) {
    long[] s = shape.clone();
    s[d] = size;
    return c.b.add(Op.EXPAND, s, value);
  }

  /**
   * dynamic-update-slice at known offsets: the operand's slices around the update, concatenated per
   * dim.
   */
  private static int updateSlice(Call c) {
    int x = c.tensor(0, null);
    int update = c.tensor(1, null);
    long[] starts = c.ints(-1, "start_indices");
    return place(c, x, update, starts, 0);
  }

  private static int place(Call c, int x, int update, long[] starts, int d) {
    long[] xs = c.shape(x);
    if (d == xs.length) {
      return c.cast(update, c.type(x).dtype());
    }
    long n = xs[d];
    long s = starts[d];
    long e = s + c.shape(update)[d];
    int middle = place(c, LayoutLowering.slice(c, x, d, s, e, 1), update, starts, d + 1);
    List<Integer> parts = new ArrayList<>();
    if (s > 0) {
      parts.add(LayoutLowering.slice(c, x, d, 0, s, 1));
    }
    parts.add(middle);
    if (e < n) {
      parts.add(LayoutLowering.slice(c, x, d, e, n, 1));
    }
    return parts.size() == 1
        ? middle
        : c.b.add(Op.CONCAT, new long[] {d}, parts.stream().mapToInt(Integer::intValue).toArray());
  }
}
