package dev.entangle.rules.linear;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.Applier.Unions;
import dev.entangle.egraph.EGraph;
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
 * division by it) at any number of ranks. It adds one kind of term only: a concat of parts that are
 * each one multiple of a G_d tensor is that multiple of the tensors' concat ({@link ScaledParts}),
 * a derived factor no output relation rests on. A factor an output may carry (a mean across ranks)
 * is one a relation or an expectation states ({@code mean(...)}, {@code scale(...)}), whose term is
 * then in the e-graph and merged with the value of equal form. Enabled from a lemma file with
 * {@code (native linear-forms)}.
 */
public final class LinearForms implements NativeRule<LinearForms.Step> {
  public static final String NAME = "linear-forms";

  /** What one search found: a merge, or a concat of scaled G_d tensors to build. */
  public sealed interface Step permits Merge, ScaledParts.Match {}

  /** Two classes whose forms are equal. */
  public record Merge(int a, int b) implements Step {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String doc() {
    return "classes of one type whose linear forms (sums of rational multiples of products of"
        + " atoms) are equal are equal";
  }

  @Override
  public boolean wholeGraph() {
    return true;
  }

  @Override
  public void search(EGraph<TypeInfo> g, SearchDeadline deadline, Found<Step> found) {
    FormTable table = new FormTable();
    Index index = new Index(g, table);
    int[] forms = ClassForms.compute(g, deadline, table, index::add);
    for (Merge m : index.merges) {
      found.match(m);
    }
    new ScaledParts(g, table, forms).search(found);
  }

  @Override
  public void apply(EGraph<TypeInfo> g, Step step, Unions unions) {
    if (step instanceof Merge m) {
      unions.union(m.a(), m.b());
    } else if (step instanceof ScaledParts.Match s) {
      unions.union(s.cls(), ScaledParts.build(g, s));
    }
  }

  /** Classes by form; two classes of one type under one form make a merge (each pair once). */
  private static final class Index {
    private final EGraph<TypeInfo> g;
    private final FormTable table;
    private final Map<Integer, List<Integer>> byForm = new HashMap<>();
    private final int[] joined;
    final List<Merge> merges = new ArrayList<>();

    Index(EGraph<TypeInfo> g, FormTable table) {
      this.g = g;
      this.table = table;
      this.joined = new int[g.classIdBound()];
      Arrays.fill(joined, -1);
    }

    void add(int cls, int form) {
      TypeInfo t = g.data(cls);
      int own = classOf(table.formAt(form));
      if (own >= 0) { // a node whose form is a class's own atom: that class's value
        merge(own, cls, t);
        return;
      }
      List<Integer> classes = byForm.computeIfAbsent(form, k -> new ArrayList<>(2));
      for (int other : classes) {
        if (other == cls) {
          return;
        }
        if (sameType(g.data(other), t)) {
          merge(other, cls, t);
          return;
        }
      }
      classes.add(cls);
    }

    private static boolean sameType(TypeInfo o, TypeInfo t) {
      return !t.isTuple() && !o.isTuple() && o.dtype() == t.dtype() && o.sameShape(t);
    }

    /** The class whose own atom the form is, or -1. */
    private int classOf(LinearForm f) {
      if (f.size() != 1 || !f.coefficient(0).isOne() || f.monomial(0).degree() != 1) {
        return -1;
      }
      Atom a = table.atomAt(f.monomial(0).atom(0));
      return a.isClass() ? a.cls() : -1;
    }

    private void merge(int other, int cls, TypeInfo t) {
      if (other != cls && sameType(g.data(other), t) && root(other) != root(cls)) {
        joined[root(cls)] = root(other);
        merges.add(new Merge(other, cls));
      }
    }

    private int root(int c) {
      while (joined[c] >= 0) {
        c = joined[c];
      }
      return c;
    }
  }
}
