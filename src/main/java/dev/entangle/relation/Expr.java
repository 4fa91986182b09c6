package dev.entangle.relation;

import java.util.List;
import java.util.Locale;

/**
 * An expression of the relation syntax (docs/formats.md, Expression syntax): a tensor reference or
 * a clean function of expressions. Dims are kept as written (they may be negative); {@link
 * ExprShapes} resolves them against shapes.
 */
public sealed interface Expr {

  /** A tensor: {@code NAME} (a G_s tensor, rank null) or {@code rK.NAME} (rank K of G_d). */
  record Tensor(Integer rank, String name) implements Expr {}

  /** {@code concat(e1, e2, ..., dim=D)}. */
  record Concat(List<Expr> parts, int dim) implements Expr {
    public Concat {
      parts = List.copyOf(parts);
    }
  }

  /** {@code slice(e, dim=D, start=S, end=E, step=K)}; step defaults to 1. */
  record Slice(Expr input, int dim, long start, long end, long step) implements Expr {}

  /**
   * {@code sum(...)}, {@code max(...)}, {@code min(...)} or {@code mean(...)}: element-wise over
   * operands of one shape.
   */
  record Reduce(ReduceKind kind, List<Expr> operands) implements Expr {
    public Reduce {
      operands = List.copyOf(operands);
    }
  }

  /**
   * {@code scale(e, P, Q)}: e times the rational P/Q (Q positive, 1 when not written). {@code
   * derived}: found by the checker for a value between operators (a rank's share of a data-parallel
   * gradient), never stated by the user, so no output relation may rest on it.
   */
  record Scale(Expr input, long num, long den, boolean derived) implements Expr {
    /** A factor as a relation states it. */
    public Scale(Expr input, long num, long den) {
      this(input, num, den, false);
    }
  }

  /** {@code transpose(e, D0, D1)}. */
  record Transpose(Expr input, int dim0, int dim1) implements Expr {}

  /** {@code permute(e, [..])}. */
  record Permute(Expr input, List<Integer> dims) implements Expr {
    public Permute {
      dims = List.copyOf(dims);
    }
  }

  /** {@code reshape(e, [..])}; one size may be -1. */
  record Reshape(Expr input, List<Long> shape) implements Expr {
    public Reshape {
      shape = List.copyOf(shape);
    }
  }

  /** {@code squeeze(e, D)}. */
  record Squeeze(Expr input, int dim) implements Expr {}

  /** {@code unsqueeze(e, D)}. */
  record Unsqueeze(Expr input, int dim) implements Expr {}

  /** The element-wise reductions a relation may use. */
  enum ReduceKind {
    SUM,
    MAX,
    MIN,
    /** The element-wise mean of n operands: their sum divided by n. */
    MEAN;

    public String fn() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
