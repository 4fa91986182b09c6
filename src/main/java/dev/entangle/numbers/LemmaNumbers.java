package dev.entangle.numbers;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.egraph.AnalysisConflict;
import dev.entangle.egraph.CostModel;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.Extractor;
import dev.entangle.egraph.Rewrite;
import dev.entangle.egraph.RunReport;
import dev.entangle.egraph.Runner;
import dev.entangle.egraph.Term;
import dev.entangle.eval.Difference;
import dev.entangle.eval.Kernels;
import dev.entangle.eval.WorkBudget;
import dev.entangle.rules.TermReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Checks one lemma on numbers: the lemma alone rewrites some terms, then every e-class is evaluated
 * on random leaf values, and every node of a class must give the class's value. A node that gives
 * another value is an equality the lemma made that does not hold: the lemma is false for that
 * instance.
 */
public final class LemmaNumbers {
  /**
   * An equality the lemma made that numbers refute.
   *
   * @param where which terms it was found on (a case's {@code file:line}, or a random seed)
   * @param term the class's value, as the smallest term of the class
   * @param node the node that gives another value
   * @param difference how the two differ
   */
  public record Violation(String where, String term, String node, Difference difference) {}

  /**
   * What one check found.
   *
   * @param applied how often the lemma merged classes
   * @param compared how many nodes were compared with their class's value
   * @param violations equalities refuted by numbers
   */
  public record Result(int applied, int compared, List<Violation> violations) {}

  private LemmaNumbers() {}

  /**
   * Applies {@code lemma} alone to {@code terms} (in the lemma-case syntax) and checks what it made
   * on numbers drawn with {@code seed}. Terms that do not read are skipped.
   */
  public static Result check(Rewrite<TypeInfo> lemma, List<String> terms, String where, long seed) {
    TermReader t = new TermReader();
    for (String term : terms) {
      try {
        t.add(term);
      } catch (IllegalArgumentException e) {
        // not a term of the language (a case's malformed side is the case tests' business)
      }
    }
    EGraph<TypeInfo> g = t.graph();
    RunReport report;
    try {
      report =
          Runner.run(
              g,
              List.of(lemma),
              new Runner.Limits(6, 20_000, System.nanoTime() + 10_000_000_000L, 2_000),
              () -> false);
    } catch (AnalysisConflict e) {
      return new Result(0, 0, List.of(new Violation(where, "-", "-", null)));
    }
    return new Evaluated(t, g, seed).compare(where, report.applied(0));
  }

  /** The e-graph's classes evaluated on random leaf values. */
  private static final class Evaluated {
    private final EGraph<TypeInfo> g;
    private final Kernels kernels;
    private final Extractor smallest;
    private final Map<Integer, Tensor> values = new HashMap<>();
    private final Map<Integer, Boolean> failed = new HashMap<>();
    private final TermReader terms;

    Evaluated(TermReader t, EGraph<TypeInfo> g, long seed) {
      this.terms = t;
      this.g = g;
      SplittableRandom random = new SplittableRandom(seed);
      Tensor[] leaves = new Tensor[t.leafCount()];
      for (int i = 0; i < leaves.length; i++) {
        leaves[i] = randomTensor(t.leafType(i), random);
      }
      this.kernels = new Kernels(t.table(), WorkBudget.unlimited(), id -> leaves[(int) id]);
      g.rebuild();
      this.smallest = new Extractor(g, CostModel.astSize());
    }

    Result compare(String where, int applied) {
      List<Violation> out = new ArrayList<>();
      int compared = 0;
      for (int c : g.classIds()) {
        Tensor v = value(c);
        if (v == null) {
          continue;
        }
        for (ENode n : g.nodes(c)) {
          Tensor x = evaluate(n);
          if (x == null) {
            continue;
          }
          compared++;
          Difference d = Difference.of(x, v);
          if (!d.matches()) {
            out.add(new Violation(where, render(smallest.extract(c)), render(n), d));
          }
        }
      }
      return new Result(applied, compared, out);
    }

    /** The class's value: its smallest term evaluated, or null when it cannot be. */
    private Tensor value(int c) {
      int root = g.find(c);
      if (failed.containsKey(root)) {
        return null;
      }
      Tensor v = values.get(root);
      if (v == null) {
        Term term = smallest.extract(root);
        v = term == null ? null : evaluate(term);
        if (v == null) {
          failed.put(root, true);
        } else {
          values.put(root, v);
        }
      }
      return v;
    }

    private Tensor evaluate(ENode n) {
      Tensor[] kids = new Tensor[n.arity()];
      for (int i = 0; i < kids.length; i++) {
        kids[i] = value(n.child(i));
        if (kids[i] == null) {
          return null;
        }
      }
      return apply(n.op(), n.attrs(), kids);
    }

    private Tensor evaluate(Term t) {
      Tensor[] kids = new Tensor[t.children().size()];
      for (int i = 0; i < kids.length; i++) {
        kids[i] = evaluate(t.child(i));
        if (kids[i] == null) {
          return null;
        }
      }
      return apply(t.op(), t.attrs(), kids);
    }

    private Tensor apply(int op, long[] attrs, Tensor[] kids) {
      Op core = Op.of(op);
      if (kids.length == 1 && core != null && core.isIdentityOfOne()) {
        return kids[0];
      }
      try {
        return kernels.apply(op, attrs, kids);
      } catch (EvalException | IllegalArgumentException | ArithmeticException e) {
        return null;
      }
    }

    private String opName(int op) {
      Op core = Op.of(op);
      return core != null ? core.symbol() : terms.table().name(op);
    }

    /** A term in the lemma-case syntax, leaves by their names. */
    private String render(Term t) {
      if (t == null) {
        return "-";
      }
      if (t.op() == Op.TENSOR.id()) {
        return terms.leafName((int) t.attr(0));
      }
      StringBuilder sb = new StringBuilder("(").append(opName(t.op()));
      attrs(sb, t.attrs());
      for (Term c : t.children()) {
        sb.append(' ').append(render(c));
      }
      return sb.append(')').toString();
    }

    /** A node with each operand written as its class's smallest term. */
    private String render(ENode n) {
      if (n.op() == Op.TENSOR.id()) {
        return terms.leafName((int) n.attr(0));
      }
      StringBuilder sb = new StringBuilder("(").append(opName(n.op()));
      attrs(sb, n.attrs());
      for (int i = 0; i < n.arity(); i++) {
        sb.append(' ').append(render(smallest.extract(n.child(i))));
      }
      return sb.append(')').toString();
    }

    private static void attrs(StringBuilder sb, long[] attrs) {
      if (attrs.length > 0) {
        sb.append('[');
        for (int i = 0; i < attrs.length; i++) {
          sb.append(i == 0 ? "" : " ").append(attrs[i]);
        }
        sb.append(']');
      }
    }
  }

  /** Random values of a leaf's type: floats in [-2, 2), integers in {0, 1}, booleans. */
  static Tensor randomTensor(TypeInfo type, SplittableRandom random) {
    long[] shape = type.shape();
    double[] v = new double[Math.toIntExact(Tensor.numel(shape))];
    boolean floating = Dtype.isFloating(type.dtype());
    for (int i = 0; i < v.length; i++) {
      v[i] = floating ? random.nextDouble(-2, 2) : random.nextInt(2);
    }
    return Tensor.of(type.dtype(), shape, v);
  }
}
