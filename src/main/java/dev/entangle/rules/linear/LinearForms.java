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
import java.util.TreeMap;

/**
 * The linear fragment decided: every class's value as a canonical linear form ({@link ClassForms}),
 * computed afresh at each search, and two classes of one shape and dtype with a form in common are
 * merged. Subsumes the laws of sums across ranks, additions, negation and constant factors one at a
 * time (commutativity, association, distribution, common factors, a count cancelling against a
 * division by it) at any number of ranks. A class with no G_d value whose form is a sum of G_d
 * values ({@link Clean}) is given that sum as a clean term. Enabled from a lemma file with {@code
 * (native linear-forms)}.
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
    int[] classes = g.classIds().sorted().toArray();
    ValueIndex values = new ValueIndex(table);
    for (int c : classes) {
      if (hasValue(g, c) && canonical[c] >= 0) {
        values.add(c, canonical[c]);
      }
    }
    for (int c : classes) {
      deadline.poll();
      Clean clean = clean(g, table, values, c, canonical[c]);
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
  private static Clean clean(
      EGraph<TypeInfo> g, FormTable table, ValueIndex values, int c, int formId) {
    if (formId < 0 || hasValue(g, c)) {
      return null;
    }
    LinearForm f = table.formAt(formId);
    if (f.size() == 0 || f.hasConstantTerm()) {
      return null;
    }
    for (boolean largestFirst : new boolean[] {true, false}) {
      Clean clean = values.decompose(c, f, largestFirst);
      if (clean != null && isSum(clean.coefficients())) {
        int existing = build(g, clean, false);
        return existing >= 0 && g.find(existing) == g.find(c) ? null : clean;
      }
    }
    return null;
  }

  /**
   * Whether the coefficients make a sum (all 1). A mean or another multiple of G_d values is not
   * made clean here: the rules do not see which rank a value is on, and a multiple of values of one
   * rank is how a misscaled result shows (micro-batch losses added where their mean was due), which
   * stating would turn into a relation. A mean across ranks is clean when a relation or an
   * expectation states it ({@code mean(...)}, {@code scale(...)}): its term is then in the e-graph,
   * and equal forms merge it with the value.
   */
  private static boolean isSum(Rational[] coefficients) {
    for (Rational r : coefficients) {
      if (!r.isOne()) {
        return false;
      }
    }
    return coefficients.length > 1;
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

  /**
   * The classes that hold G_d values, by the monomials of their forms: a form is written as a
   * combination of values by taking, for its first monomial left, a value whose form holds it and
   * whose every monomial the rest holds in the same ratio, and subtracting it (values that share no
   * monomials, as the ranks' parts do, are found one by one).
   */
  private static final class ValueIndex {
    /** The most values tried for one monomial. */
    private static final int TRIES = 8;

    private final FormTable table;
    private final Map<Monomial, List<Integer>> byMonomial = new HashMap<>();
    private final Map<Integer, LinearForm> forms = new HashMap<>();

    ValueIndex(FormTable table) {
      this.table = table;
    }

    void add(int cls, int form) {
      LinearForm f = table.formAt(form);
      if (f.size() == 0 || f.hasConstantTerm()) {
        return;
      }
      forms.put(cls, f);
      for (int i = 0; i < f.size(); i++) {
        byMonomial.computeIfAbsent(f.monomial(i), k -> new ArrayList<>()).add(cls);
      }
    }

    /** {@code f} as a combination of values, trying larger (or smaller) values first; or null. */
    Clean decompose(int cls, LinearForm f, boolean largestFirst) {
      TreeMap<Monomial, Rational> rest = new TreeMap<>();
      for (int i = 0; i < f.size(); i++) {
        rest.put(f.monomial(i), f.coefficient(i));
      }
      List<Integer> picked = new ArrayList<>();
      List<Rational> ratios = new ArrayList<>();
      while (!rest.isEmpty()) {
        Map.Entry<Monomial, Rational> first = rest.firstEntry();
        List<Integer> candidates =
            new ArrayList<>(byMonomial.getOrDefault(first.getKey(), List.of()));
        candidates.sort(
            (a, b) -> {
              int sa = forms.get(a).size();
              int sb = forms.get(b).size();
              return sa != sb ? (largestFirst ? sb - sa : sa - sb) : Integer.compare(a, b);
            });
        boolean taken = false;
        for (int i = 0; i < candidates.size() && i < TRIES && !taken; i++) {
          int v = candidates.get(i);
          if (v == cls) {
            continue;
          }
          Rational ratio = taken(rest, forms.get(v), first.getKey(), first.getValue());
          if (ratio != null) {
            picked.add(v);
            ratios.add(ratio);
            taken = true;
          }
        }
        if (!taken || picked.size() > LinearForm.MAX_TERMS) {
          return null;
        }
      }
      return new Clean(
          cls,
          picked.stream().mapToInt(Integer::intValue).toArray(),
          ratios.toArray(Rational[]::new));
    }

    /**
     * Subtracts {@code r · value} from {@code rest} when every monomial of the value is in it in
     * one ratio r (that of {@code m}); returns r, or null (rest unchanged).
     */
    private static Rational taken(
        TreeMap<Monomial, Rational> rest, LinearForm value, Monomial m, Rational c) {
      Rational ratio = null;
      try {
        for (int i = 0; i < value.size(); i++) {
          if (value.monomial(i).equals(m)) {
            ratio = c.times(value.coefficient(i).reciprocal());
          }
        }
        if (ratio == null) {
          return null;
        }
        for (int i = 0; i < value.size(); i++) {
          Rational have = rest.get(value.monomial(i));
          if (have == null || !have.equals(value.coefficient(i).times(ratio))) {
            return null;
          }
        }
      } catch (ArithmeticException e) {
        return null;
      }
      for (int i = 0; i < value.size(); i++) {
        rest.remove(value.monomial(i));
      }
      return ratio;
    }
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
