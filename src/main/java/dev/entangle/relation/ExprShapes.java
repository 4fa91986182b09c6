package dev.entangle.relation;

import dev.entangle.graph.Dim;
import dev.entangle.graph.TensorType;
import dev.entangle.util.Fractions;
import dev.entangle.util.InputException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Result types of relation expressions, with PyTorch's semantics: negative dims count from the end,
 * slice bounds are clamped like Python's, one reshape size may be -1, squeezing a dim whose size is
 * not 1 leaves the tensor as it is, and element-wise reductions take operands of one shape (no
 * broadcasting). Sizes must be concrete wherever arithmetic on them is needed.
 */
public final class ExprShapes {
  private final Function<Expr.Tensor, TensorType> leafType;
  private final String where;

  private ExprShapes(Function<Expr.Tensor, TensorType> leafType, String where) {
    this.leafType = leafType;
    this.where = where;
  }

  /** An expression as written, its normalized form and its result type. */
  private record Typed(Expr written, Expr expr, TensorType type) {}

  /**
   * The result type of {@code e}.
   *
   * @param leafType the type of each tensor reference; it may throw its own {@link InputException}
   *     for a name that does not resolve
   * @param where the start of error messages, e.g. {@code ri.json: relations[3] (gs "w")}
   * @throws InputException naming {@code where} and the subexpression when shapes do not fit
   */
  public static TensorType shape(Expr e, Function<Expr.Tensor, TensorType> leafType, String where) {
    return new ExprShapes(leafType, where).typed(e).type();
  }

  /**
   * The same expression with every dim non-negative, slice bounds clamped into the tensor (an end
   * before the start becomes the start) and a reshape's -1 replaced by the size it stands for.
   */
  public static Expr normalize(Expr e, Function<Expr.Tensor, TensorType> leafType) {
    return normalize(e, leafType, "expression " + ExprPrinter.print(e));
  }

  /** {@link #normalize(Expr, Function)} with messages starting with {@code where}. */
  public static Expr normalize(Expr e, Function<Expr.Tensor, TensorType> leafType, String where) {
    return new ExprShapes(leafType, where).typed(e).expr();
  }

  private Typed typed(Expr e) {
    if (e instanceof Expr.Tensor t) {
      TensorType type = leafType.apply(t);
      if (type == null) {
        throw error(e, "the tensor has no known type", "check the name");
      }
      return new Typed(t, t, type);
    } else if (e instanceof Expr.Concat c) {
      return concat(c);
    } else if (e instanceof Expr.Slice s) {
      return slice(s);
    } else if (e instanceof Expr.Reduce r) {
      return reduce(r);
    } else if (e instanceof Expr.Scale s) {
      return scale(s);
    } else if (e instanceof Expr.Transpose t) {
      Typed in = typed(t.input());
      int rank = in.type().rank();
      int d0 = dim(t.dim0(), rank, t, in);
      int d1 = dim(t.dim1(), rank, t, in);
      List<Dim> shape = new ArrayList<>(in.type().shape());
      if (rank > 0) {
        shape.set(d0, in.type().shape().get(d1));
        shape.set(d1, in.type().shape().get(d0));
      }
      return new Typed(t, new Expr.Transpose(in.expr(), d0, d1), with(in, shape));
    } else if (e instanceof Expr.Permute p) {
      return permute(p);
    } else if (e instanceof Expr.Reshape r) {
      return reshape(r);
    } else if (e instanceof Expr.Squeeze s) {
      Typed in = typed(s.input());
      int d = dim(s.dim(), in.type().rank(), s, in);
      List<Dim> shape = new ArrayList<>(in.type().shape());
      if (!shape.isEmpty() && shape.get(d).equals(Dim.of(1))) {
        shape.remove(d);
      }
      return new Typed(s, new Expr.Squeeze(in.expr(), d), with(in, shape));
    } else if (e instanceof Expr.Unsqueeze u) {
      Typed in = typed(u.input());
      int d = dim(u.dim(), in.type().rank() + 1, u, in);
      List<Dim> shape = new ArrayList<>(in.type().shape());
      shape.add(d, Dim.of(1));
      return new Typed(u, new Expr.Unsqueeze(in.expr(), d), with(in, shape));
    }
    throw new IllegalArgumentException("unknown expression " + e);
  }

  private Typed concat(Expr.Concat c) {
    if (c.parts().isEmpty()) {
      throw error(c, "concat has no parts", "give at least one tensor expression");
    }
    List<Typed> parts = new ArrayList<>();
    for (Expr p : c.parts()) {
      parts.add(typed(p));
    }
    Typed first = parts.get(0);
    int rank = first.type().rank();
    if (rank == 0) {
      throw error(
          c,
          "cannot concat 0-d tensors (" + ExprPrinter.print(first.written()) + " has shape [])",
          "unsqueeze them first");
    }
    int d = dim(c.dim(), rank, c, first);
    long size = 0;
    List<Expr> normalized = new ArrayList<>();
    for (Typed part : parts) {
      TensorType t = part.type();
      if (t.rank() != rank) {
        throw error(
            c,
            "the parts differ in rank: " + describe(first) + " but " + describe(part),
            "concat parts of one rank");
      }
      if (!t.dtype().equals(first.type().dtype())) {
        throw error(
            c,
            "the parts differ in dtype: " + describeDtype(first) + " but " + describeDtype(part),
            "concat parts of one dtype");
      }
      for (int i = 0; i < rank; i++) {
        if (i != d && !t.shape().get(i).equals(first.type().shape().get(i))) {
          throw error(
              c,
              "the parts differ off the concat dim "
                  + d
                  + ": "
                  + describe(first)
                  + " but "
                  + describe(part),
              "check the concat dim and the parts");
        }
      }
      size = add(size, fixed(t.shape().get(d), c), c);
      normalized.add(part.expr());
    }
    List<Dim> shape = new ArrayList<>(first.type().shape());
    shape.set(d, Dim.of(size));
    return new Typed(c, new Expr.Concat(normalized, d), with(first, shape));
  }

  private Typed slice(Expr.Slice s) {
    Typed in = typed(s.input());
    if (in.type().rank() == 0) {
      throw error(
          s,
          "cannot slice a 0-d tensor (" + ExprPrinter.print(in.written()) + " has shape [])",
          "slice a tensor with at least one dim");
    }
    int d = dim(s.dim(), in.type().rank(), s, in);
    if (s.step() < 1) {
      throw error(s, "the step is " + s.step(), "a slice step must be positive");
    }
    long size = fixed(in.type().shape().get(d), s);
    long start = clamp(s.start(), size);
    long end = Math.max(start, clamp(s.end(), size));
    long length = end == start ? 0 : (end - start - 1) / s.step() + 1;
    List<Dim> shape = new ArrayList<>(in.type().shape());
    shape.set(d, Dim.of(length));
    return new Typed(s, new Expr.Slice(in.expr(), d, start, end, s.step()), with(in, shape));
  }

  /** A Python slice bound: negative counts from the end; then clamped into [0, size]. */
  private static long clamp(long bound, long size) {
    long b = bound < 0 ? bound + size : bound;
    return Math.max(0, Math.min(b, size));
  }

  /** A factor P/Q in lowest terms with Q positive; the operand a floating-point tensor. */
  private Typed scale(Expr.Scale s) {
    Typed in = typed(s.input());
    if (s.den() == 0) {
      throw error(s, "the factor's denominator is 0", "write scale(e, P, Q) with Q not 0");
    }
    if (s.num() == Long.MIN_VALUE || s.den() == Long.MIN_VALUE) {
      throw error(s, "the factor is out of range", "write a smaller P and Q");
    }
    long g = Fractions.gcd(Math.abs(s.num()), Math.abs(s.den()));
    long num = (s.den() < 0 ? -s.num() : s.num()) / g;
    long den = Math.abs(s.den()) / g;
    return new Typed(s, new Expr.Scale(in.expr(), num, den, s.derived()), in.type());
  }

  private Typed reduce(Expr.Reduce r) {
    if (r.operands().isEmpty()) {
      throw error(r, r.kind().fn() + " has no operands", "give at least one tensor expression");
    }
    List<Expr> normalized = new ArrayList<>();
    Typed first = null;
    for (Expr o : r.operands()) {
      Typed t = typed(o);
      if (first == null) {
        first = t;
      } else if (!t.type().shape().equals(first.type().shape())) {
        throw error(
            r,
            "the operands differ in shape: " + describe(first) + " but " + describe(t),
            r.kind().fn() + " takes operands of one shape (no broadcasting)");
      } else if (!t.type().dtype().equals(first.type().dtype())) {
        throw error(
            r,
            "the operands differ in dtype: " + describeDtype(first) + " but " + describeDtype(t),
            r.kind().fn() + " takes operands of one dtype");
      }
      normalized.add(t.expr());
    }
    return new Typed(r, new Expr.Reduce(r.kind(), normalized), first.type());
  }

  private Typed permute(Expr.Permute p) {
    Typed in = typed(p.input());
    int rank = in.type().rank();
    if (p.dims().size() != rank) {
      throw error(
          p,
          "permute lists " + p.dims().size() + " dims but " + describe(in),
          "list each of its " + rank + " dims once");
    }
    List<Integer> dims = new ArrayList<>();
    List<Dim> shape = new ArrayList<>();
    Set<Integer> seen = new HashSet<>();
    for (int raw : p.dims()) {
      int d = dim(raw, rank, p, in);
      if (!seen.add(d)) {
        throw error(p, "dim " + d + " appears twice in " + p.dims(), "list each dim once");
      }
      dims.add(d);
      shape.add(in.type().shape().get(d));
    }
    return new Typed(p, new Expr.Permute(in.expr(), dims), with(in, shape));
  }

  private Typed reshape(Expr.Reshape r) {
    Typed in = typed(r.input());
    long elements = 1;
    for (Dim d : in.type().shape()) {
      elements = multiply(elements, fixed(d, r), r);
    }
    int inferred = -1;
    long known = 1;
    for (int i = 0; i < r.shape().size(); i++) {
      long size = r.shape().get(i);
      if (size == -1) {
        if (inferred >= 0) {
          throw error(r, "more than one size is -1", "at most one reshape size may be -1");
        }
        inferred = i;
      } else if (size < 0) {
        throw error(r, "the size " + size + " is negative", "sizes are non-negative, or -1 once");
      } else {
        known = multiply(known, size, r);
      }
    }
    List<Long> sizes = new ArrayList<>(r.shape());
    if (inferred >= 0) {
      if (known == 0 || elements % known != 0) {
        throw error(
            r,
            describe(in) + " (" + elements + " elements), which cannot be viewed as " + r.shape(),
            "check the reshape sizes");
      }
      sizes.set(inferred, elements / known);
    } else if (known != elements) {
      throw error(
          r,
          describe(in) + " (" + elements + " elements) but " + r.shape() + " holds " + known,
          "the reshape sizes must multiply to the element count");
    }
    List<Dim> shape = sizes.stream().map(Dim::of).toList();
    return new Typed(r, new Expr.Reshape(in.expr(), sizes), with(in, shape));
  }

  /** A dim normalized against {@code rank} (a 0-d tensor takes dims -1 and 0, as in PyTorch). */
  private int dim(long raw, int rank, Expr at, Typed input) {
    int wrap = Math.max(rank, 1);
    if (raw < -wrap || raw >= wrap) {
      throw error(
          at,
          "dim "
              + raw
              + " is out of range for "
              + ExprPrinter.print(input.written())
              + ", which has shape "
              + input.type().shape(),
          "dims go from " + -wrap + " to " + (wrap - 1));
    }
    return (int) (raw < 0 ? raw + wrap : raw);
  }

  private long fixed(Dim d, Expr at) {
    if (d instanceof Dim.Fixed f) {
      return f.size();
    }
    throw error(at, "the size " + d + " is symbolic", "relations need concrete sizes here");
  }

  private long multiply(long a, long b, Expr at) {
    try {
      return Math.multiplyExact(a, b);
    } catch (ArithmeticException e) {
      throw error(at, "the element count overflows 64 bits", "check the sizes");
    }
  }

  private long add(long a, long b, Expr at) {
    try {
      return Math.addExact(a, b);
    } catch (ArithmeticException e) {
      throw error(at, "the size overflows 64 bits", "check the sizes");
    }
  }

  private static TensorType with(Typed in, List<Dim> shape) {
    return new TensorType(shape, in.type().dtype());
  }

  private static String describe(Typed t) {
    return ExprPrinter.print(t.written()) + " has shape " + t.type().shape();
  }

  private static String describeDtype(Typed t) {
    return ExprPrinter.print(t.written()) + " has dtype " + t.type().dtype();
  }

  private InputException error(Expr at, String problem, String advice) {
    return new InputException(
        where + ": in " + ExprPrinter.print(at) + ": " + problem + "; " + advice + ".");
  }
}
