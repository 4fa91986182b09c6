package dev.entangle.rules.linear;

import dev.entangle.core.Op;
import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.ENode;
import dev.entangle.egraph.NodeRange;
import dev.entangle.rules.NativeRule;
import dev.entangle.rules.SearchDeadline;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The linear fragment decided: every class's value as a canonical linear form ({@link ClassForms}),
 * computed afresh at each search, and two classes of one shape and dtype with a form in common are
 * merged. Subsumes the laws of sums across ranks, additions, negation and constant factors one at a
 * time (commutativity, association, distribution, common factors, a count cancelling against a
 * division by it) at any number of ranks. A class with no G_d value whose form is a sum or a mean
 * of G_d values ({@link Clean}) is given that combination as a clean term ({@code sum(...)}, {@code
 * mean(...)}). Enabled from a lemma file with {@code (native linear-forms)}.
 */
public final class LinearForms implements NativeRule<LinearForms.Step> {
  public static final String NAME = "linear-forms";

  /** What one match asks for. */
  public sealed interface Step permits Merge, Clean {}

  /** Two classes whose forms are equal. */
  public record Merge(int a, int b) implements Step {}

  /**
   * A class whose form is {@code Σ c_i · v_i} over classes {@code v_i} that hold G_d values: it is
   * given {@code scale[common](sumn(scale[c_i / common](v_i), ...))}, each factor of one left out.
   *
   * @param cls the class
   * @param values the classes of the G_d values, in the form's order
   * @param coefficients their coefficients
   */
  public record Clean(int cls, int[] values, Rational[] coefficients) implements Step {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "classes of one type whose linear forms (sums of rational multiples of products of"
        + " atoms) are equal are equal; a combination of G_d values is a clean term";
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Step> found) {
    Index index = new Index(g);
    FormTable table = new FormTable();
    int[] canonical = ClassForms.compute(g, deadline, table, index::add);
    for (Merge m : index.merges) {
      found.match(m);
    }
    for (int c : g.classIds().sorted().toArray()) {
      deadline.poll();
      Clean clean = clean(g, table, c, canonical[c]);
      if (clean != null) {
        found.match(clean);
      }
    }
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Step step, Unions unions) {
    if (step instanceof Merge m) {
      unions.union(m.a(), m.b());
    } else if (step instanceof Clean c) {
      unions.union(c.cls(), build(g, c, true));
    }
  }

  /** The clean combination a class lacks, or null. */
  private static Clean clean(EGraph<TypeInfo> g, FormTable table, int c, int formId) {
    if (formId < 0 || hasValue(g, c)) {
      return null;
    }
    LinearForm f = table.formAt(formId);
    if (f.size() == 0 || f.hasConstantTerm()) {
      return null;
    }
    int[] values = new int[f.size()];
    Rational[] coefficients = new Rational[f.size()];
    for (int i = 0; i < f.size(); i++) {
      Monomial m = f.monomial(i);
      if (m.degree() != 1) {
        return null;
      }
      Atom a = table.atomAt(m.atom(0));
      if (!a.isClass() || a.cls() == g.find(c) || !hasValue(g, a.cls())) {
        return null;
      }
      values[i] = a.cls();
      coefficients[i] = f.coefficient(i);
    }
    if (!sumOrMean(coefficients)) {
      return null;
    }
    Clean clean = new Clean(c, values, coefficients);
    int existing = build(g, clean, false);
    return existing >= 0 && g.find(existing) == g.find(c) ? null : clean;
  }

  /**
   * Whether the coefficients make a sum across ranks (all 1) or a mean (all 1/k for k values, k at
   * least 2). Other multiples of G_d values are not made clean: a value that is some multiple of
   * another is how a misscaled result (a sum where a mean was due) shows, and stating it would turn
   * such a bug into a relation.
   */
  private static boolean sumOrMean(Rational[] coefficients) {
    Rational mean = Rational.of(1, coefficients.length);
    boolean sum = true;
    boolean average = coefficients.length > 1;
    for (Rational r : coefficients) {
      sum &= r.isOne();
      average &= r.equals(mean);
    }
    return sum || average;
  }

  private static boolean hasValue(EGraph<TypeInfo> g, int c) {
    NodeRange r = g.nodes(c, Op.TENSOR.id());
    return r.to() > r.from();
  }

  /**
   * The clean term's class: built when {@code add}, else looked up (-1 when some node is absent).
   */
  private static int build(EGraph<TypeInfo> g, Clean c, boolean add) {
    Rational common = c.coefficients()[0];
    for (Rational r : c.coefficients()) {
      if (!r.equals(common)) {
        common = Rational.ONE;
        break;
      }
    }
    int[] parts = new int[c.values().length];
    for (int i = 0; i < parts.length; i++) {
      Rational r = c.coefficients()[i].times(common.reciprocal());
      parts[i] = scaled(g, g.find(c.values()[i]), r, add);
      if (parts[i] < 0) {
        return -1;
      }
    }
    int sum =
        parts.length == 1 ? parts[0] : node(g, new ENode(Op.SUMN.id(), new long[0], parts), add);
    return sum < 0 ? -1 : scaled(g, sum, common, add);
  }

  private static int scaled(EGraph<TypeInfo> g, int cls, Rational r, boolean add) {
    return r.isOne()
        ? cls
        : node(g, new ENode(Op.SCALE.id(), new long[] {r.num(), r.den()}, new int[] {cls}), add);
  }

  private static int node(EGraph<TypeInfo> g, ENode n, boolean add) {
    return add ? g.add(n) : g.lookup(n);
  }

  /** Classes by form; two classes of one type under one form make a merge (each pair once). */
  private static final class Index {
    private final EGraph<TypeInfo> g;
    private final Map<Integer, List<Integer>> byForm = new HashMap<>();
    private final int[] joined;
    final List<Merge> merges = new ArrayList<>();

    Index(EGraph<TypeInfo> g) {
      this.g = g;
      this.joined = new int[g.classIds().max().orElse(-1) + 1];
      Arrays.fill(joined, -1);
    }

    void add(int cls, int form) {
      List<Integer> classes = byForm.computeIfAbsent(form, k -> new ArrayList<>(2));
      TypeInfo t = g.data(cls);
      for (int other : classes) {
        if (other == cls) {
          return;
        }
        TypeInfo o = g.data(other);
        if (o.dtype() == t.dtype() && o.sameShape(t) && !t.isTuple()) {
          if (root(other) != root(cls)) {
            joined[root(cls)] = root(other);
            merges.add(new Merge(other, cls));
          }
          return;
        }
      }
      classes.add(cls);
    }

    private int root(int c) {
      while (joined[c] >= 0) {
        c = joined[c];
      }
      return c;
    }
  }
}
