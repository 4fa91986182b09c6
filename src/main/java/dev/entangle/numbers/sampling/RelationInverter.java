package dev.entangle.numbers.sampling;

import dev.entangle.core.Dtype;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.numeric.Tolerance;
import dev.entangle.eval.IndexMaps;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Node;
import dev.entangle.graph.TensorType;
import dev.entangle.lower.aten.AtenNormalizer;
import dev.entangle.relation.Expr;
import dev.entangle.relation.ExprPrinter;
import dev.entangle.relation.ExprShapes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds values of G_d tensors that make relation expressions equal given values: a layout
 * expression (concat, slice, transpose, permute, reshape, squeeze, unsqueeze) puts each element
 * where it came from; {@code sum} splits an element into random parts that add up to it, {@code
 * max} ({@code min}) gives it to one operand and smaller (larger) values to the others, each
 * respecting operands already known; {@code mean} splits n times the element as a sum does, and
 * {@code scale} divides it by its factor. What it finds is kept per G_d tensor as a {@link
 * Partial}; an element that would need two values, or a reduction it cannot meet, is a {@link
 * SamplingException} naming the entry and the element. Expressions must be normalized ({@link
 * ExprShapes#normalize}).
 */
public final class RelationInverter {
  /**
   * A G_d tensor: rank and node name. Its {@code equals} and {@code hashCode} are written out (as
   * are {@link dev.entangle.graph.Dim.Fixed}'s): a record's generated ones set up method handles on
   * first use, about 20 ms of a small check.
   */
  record Leaf(int rank, String name) {
    String label() {
      return "r" + rank + "." + name;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Leaf l && l.rank == rank && l.name.equals(name);
    }

    @Override
    public int hashCode() {
      return 31 * rank + name.hashCode();
    }
  }

  private final DistributedGraph gd;
  private final RandomValues random;
  private final Map<Leaf, Partial> leaves = new LinkedHashMap<>();

  RelationInverter(DistributedGraph gd, RandomValues random) {
    this.gd = gd;
    this.random = random;
  }

  /** What is known of each G_d tensor so far. */
  Map<Leaf, Partial> leaves() {
    return leaves;
  }

  Leaf leaf(Expr.Tensor t) {
    return new Leaf(t.rank(), gd.rank(t.rank()).resolve(t.name()).name());
  }

  /** What is known of a G_d tensor, made all-unknown on first use. */
  Partial partial(Leaf leaf) {
    return leaves.computeIfAbsent(
        leaf,
        l -> {
          Node n = gd.rank(l.rank()).node(l.name());
          var type = AtenNormalizer.typeOf(n.type(), n);
          return Partial.unknown(type.shape(), type.dtype());
        });
  }

  private TensorType typeOf(Expr e) {
    return ExprShapes.shape(
        e, t -> gd.rank(t.rank()).resolve(t.name()).type(), ExprPrinter.print(e));
  }

  private long[] shapeOf(Expr e) {
    return typeOf(e).sizes();
  }

  /**
   * The value of an expression as far as its tensors are known: an element is known when all it
   * reads are.
   */
  Partial current(Expr e) {
    if (e instanceof Expr.Tensor t) {
      return partial(leaf(t));
    }
    if (e instanceof Expr.Concat c) {
      long[] shape = shapeOf(c);
      Partial out = Partial.unknown(shape, Dtype.code(typeOf(c).dtype()));
      long off = 0;
      for (Expr p : c.parts()) {
        Partial part = current(p);
        long size = part.shape[c.dim()];
        int[] map = IndexMaps.slice(shape, c.dim(), off, off + size, 1);
        for (int i = 0; i < map.length; i++) {
          out.values[map[i]] = part.values[i];
          out.known[map[i]] = part.known[i];
        }
        off += size;
      }
      return out;
    }
    if (e instanceof Expr.Reduce r) {
      List<Partial> ops = new ArrayList<>();
      for (Expr o : r.operands()) {
        ops.add(current(o));
      }
      Partial out = Partial.unknown(ops.get(0).shape, ops.get(0).dtype);
      for (int i = 0; i < out.numel(); i++) {
        boolean known = true;
        double v = reduceIdentity(r.kind());
        for (Partial p : ops) {
          known &= p.known[i];
          v = combine(r.kind(), v, p.values[i]);
        }
        out.known[i] = known;
        out.values[i] = known ? v : 0;
      }
      return r.kind() == Expr.ReduceKind.MEAN ? scaled(out, 1.0 / ops.size()) : out;
    }
    if (e instanceof Expr.Scale s) {
      return scaled(current(s.input()), (double) s.num() / s.den());
    }
    Expr input = inputOf(e);
    Partial in = current(input);
    int[] map = mapOf(e, in.shape);
    return map == null ? in.reshaped(shapeOf(e)) : in.gather(map, shapeOf(e));
  }

  /** Makes {@code e} equal {@code target} where the target is known. */
  void assign(Expr e, Partial target, String where) {
    if (e instanceof Expr.Tensor t) {
      merge(leaf(t), target, where);
    } else if (e instanceof Expr.Concat c) {
      long off = 0;
      for (Expr p : c.parts()) {
        long[] ps = shapeOf(p);
        long size = ps[c.dim()];
        assign(
            p,
            target.gather(IndexMaps.slice(target.shape, c.dim(), off, off + size, 1), ps),
            where);
        off += size;
      }
    } else if (e instanceof Expr.Scale s) {
      if (s.num() != 0) {
        assign(s.input(), scaled(target, (double) s.den() / s.num()), where);
      }
    } else if (e instanceof Expr.Reduce r) {
      if (r.operands().size() == 1) {
        assign(r.operands().get(0), target, where);
      } else if (r.kind() == Expr.ReduceKind.MEAN) {
        assignSum(
            new Expr.Reduce(Expr.ReduceKind.SUM, r.operands()),
            scaled(target, r.operands().size()),
            where);
      } else if (r.kind() == Expr.ReduceKind.SUM) {
        assignSum(r, target, where);
      } else {
        assignExtremum(r, target, where);
      }
    } else {
      Expr input = inputOf(e);
      long[] in = shapeOf(input);
      int[] map = mapOf(e, in);
      assign(input, map == null ? target.reshaped(in) : target.scatter(map, in), where);
    }
  }

  /**
   * Records the known elements of {@code target} in a G_d tensor, refusing a second, different
   * value.
   */
  private void merge(Leaf leaf, Partial target, String where) {
    Partial p = partial(leaf);
    int i = p.absorb(target, Tolerance.forDtype(p.dtype).scaledTo(Math.max(target.rms(), p.rms())));
    if (i >= 0) {
      throw new SamplingException(
          where
              + ": "
              + leaf.label()
              + " at "
              + Arrays.toString(Tensor.unflatten(p.shape, i))
              + " would have to be both "
              + p.values[i]
              + " and "
              + target.values[i]
              + "; the relation is contradictory (or relates inputs the sequential graph samples independently)");
    }
  }

  /**
   * Splits each known element of the target among the operands still free there: random parts for
   * all but the last free operand, which gets the rest once the others are in place.
   */
  private void assignSum(Expr.Reduce r, Partial target, String where) {
    List<Expr> ops = r.operands();
    int n = ops.size();
    List<Partial> cur = currents(ops);
    int[] last = new int[target.numel()];
    List<Partial> parts = unknowns(target, n);
    for (int i = 0; i < target.numel(); i++) {
      last[i] = -1;
      if (!target.known[i]) {
        continue;
      }
      for (int j = 0; j < n; j++) {
        if (!cur.get(j).known[i]) {
          if (last[i] >= 0) {
            set(parts.get(last[i]), i, random.part(target.dtype));
          }
          last[i] = j;
        }
      }
    }
    assignAll(ops, parts, where);
    cur = currents(ops);
    List<Partial> rest = unknowns(target, n);
    for (int i = 0; i < target.numel(); i++) {
      if (last[i] < 0) {
        continue;
      }
      double v = target.values[i];
      for (int j = 0; j < n; j++) {
        if (j != last[i]) {
          v -= cur.get(j).values[i];
        }
      }
      set(rest.get(last[i]), i, v);
    }
    assignAll(ops, rest, where);
    verify(r, target, where);
  }

  /**
   * Gives each known element of the target to one free operand (unless a known operand already
   * reaches it) and values beyond it (below for max, above for min) to the other free operands.
   */
  private void assignExtremum(Expr.Reduce r, Partial target, String where) {
    List<Expr> ops = r.operands();
    int n = ops.size();
    boolean max = r.kind() == Expr.ReduceKind.MAX;
    List<Partial> cur = currents(ops);
    List<Partial> parts = unknowns(target, n);
    Tolerance tol = Tolerance.forDtype(target.dtype);
    for (int i = 0; i < target.numel(); i++) {
      if (!target.known[i]) {
        continue;
      }
      double t = target.values[i];
      boolean reached = false;
      int chosen = -1;
      for (int j = 0; j < n; j++) {
        if (cur.get(j).known[i]) {
          reached |= tol.close(cur.get(j).values[i], t);
        } else {
          chosen = j;
        }
      }
      for (int j = 0; j < n; j++) {
        if (!cur.get(j).known[i]) {
          set(parts.get(j), i, j == chosen && !reached ? t : beyond(t, max, target.dtype));
        }
      }
    }
    assignAll(ops, parts, where);
    verify(r, target, where);
  }

  private double beyond(double t, boolean max, int dtype) {
    if (dtype == Dtype.BOOL.code()) {
      return max ? 0 : 1;
    }
    double m = random.margin(dtype);
    return max ? t - m : t + m;
  }

  /** The reduction, now that its operands are assigned, must give the target. */
  private void verify(Expr.Reduce r, Partial target, String where) {
    Partial got = current(r);
    Tolerance tol = Tolerance.forDtype(target.dtype).scaledTo(target.rms());
    for (int i = 0; i < target.numel(); i++) {
      if (target.known[i] && (!got.known[i] || !tol.close(got.values[i], target.values[i]))) {
        throw new SamplingException(
            where
                + ": "
                + ExprPrinter.print(r)
                + " cannot be made to equal "
                + target.values[i]
                + " at "
                + Arrays.toString(Tensor.unflatten(target.shape, i))
                + (got.known[i]
                    ? " (its operands, fixed by other entries, give " + got.values[i] + ")"
                    : "")
                + "; the relation is contradictory, or an operand appears twice in it");
      }
    }
  }

  private List<Partial> currents(List<Expr> ops) {
    List<Partial> out = new ArrayList<>();
    for (Expr o : ops) {
      out.add(current(o));
    }
    return out;
  }

  private static List<Partial> unknowns(Partial like, int n) {
    List<Partial> out = new ArrayList<>();
    for (int j = 0; j < n; j++) {
      out.add(Partial.unknown(like.shape, like.dtype));
    }
    return out;
  }

  private void assignAll(List<Expr> ops, List<Partial> parts, String where) {
    for (int j = 0; j < ops.size(); j++) {
      if (parts.get(j).knownCount() > 0) {
        assign(ops.get(j), parts.get(j), where);
      }
    }
  }

  private static void set(Partial p, int i, double v) {
    p.values[i] = v;
    p.known[i] = true;
  }

  /** A copy with every known element times {@code factor}. */
  private static Partial scaled(Partial p, double factor) {
    Partial out = Partial.unknown(p.shape, p.dtype);
    for (int i = 0; i < out.numel(); i++) {
      out.known[i] = p.known[i];
      out.values[i] = p.known[i] ? p.values[i] * factor : 0;
    }
    return out;
  }

  private static double reduceIdentity(Expr.ReduceKind k) {
    return switch (k) {
      case SUM, MEAN -> 0;
      case MAX -> Double.NEGATIVE_INFINITY;
      case MIN -> Double.POSITIVE_INFINITY;
    };
  }

  private static double combine(Expr.ReduceKind k, double a, double b) {
    return switch (k) {
      case SUM, MEAN -> a + b;
      case MAX -> Math.max(a, b);
      case MIN -> Math.min(a, b);
    };
  }

  /** The one operand of a layout expression other than concat. */
  private static Expr inputOf(Expr e) {
    if (e instanceof Expr.Slice s) {
      return s.input();
    } else if (e instanceof Expr.Transpose t) {
      return t.input();
    } else if (e instanceof Expr.Permute p) {
      return p.input();
    } else if (e instanceof Expr.Reshape r) {
      return r.input();
    } else if (e instanceof Expr.Squeeze s) {
      return s.input();
    } else if (e instanceof Expr.Unsqueeze u) {
      return u.input();
    }
    throw new IllegalArgumentException("not a layout expression: " + ExprPrinter.print(e));
  }

  /**
   * For each element of a slice or permute, its position in the input; null for the reshapes, which
   * keep positions.
   */
  private static int[] mapOf(Expr e, long[] in) {
    if (e instanceof Expr.Slice s) {
      return IndexMaps.slice(in, s.dim(), s.start(), s.end(), s.step());
    }
    if (e instanceof Expr.Transpose t) {
      long[] dims = new long[in.length];
      for (int i = 0; i < dims.length; i++) {
        dims[i] = i;
      }
      if (in.length > 0) {
        dims[t.dim0()] = t.dim1();
        dims[t.dim1()] = t.dim0();
      }
      return IndexMaps.permute(in, dims);
    }
    if (e instanceof Expr.Permute p) {
      return IndexMaps.permute(in, p.dims().stream().mapToLong(Integer::longValue).toArray());
    }
    return null;
  }
}
