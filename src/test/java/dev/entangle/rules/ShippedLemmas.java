package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.Runner;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/** The library in {@code lemmas/}, the cases in {@code lemma-cases/}, and how a case is run. */
final class ShippedLemmas {
  static final Lemmas LEMMAS = LemmaLibrary.load(List.of(Path.of("lemmas")));
  static final List<LemmaCase> CASES = LemmaCase.load(caseDir());

  private ShippedLemmas() {}

  private static Path caseDir() {
    try {
      return Path.of(ShippedLemmas.class.getResource("/lemma-cases").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Limits for one case: generous for terms of a few nodes, small enough to keep the suite fast.
   */
  static Runner.Limits limits(int iterations) {
    return new Runner.Limits(iterations, 20_000, System.nanoTime() + 5_000_000_000L, 1_000);
  }

  /** A case's two sides built into a fresh e-graph. */
  record Sides(TermReader terms, int left, int right) {
    EGraph<TypeInfo> graph() {
      return terms.graph();
    }

    boolean equal() {
      return graph().find(left) == graph().find(right);
    }
  }

  /**
   * Builds both sides of a case, checking that the case is meaningful: its sides are distinct terms
   * of one shape.
   */
  static Sides build(LemmaCase c) {
    TermReader t = new TermReader();
    int l;
    int r;
    try {
      l = t.add(c.left());
      r = t.add(c.right());
      if (c.given() != null) {
        int a = t.add(c.given()[0]);
        int b = t.add(c.given()[1]);
        if (!Arrays.equals(t.graph().data(a).shape(), t.graph().data(b).shape())) {
          throw new IllegalArgumentException(
              "the given sides have different shapes, "
                  + t.graph().data(a)
                  + " and "
                  + t.graph().data(b));
        }
        t.graph().union(a, b);
        t.graph().rebuild();
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(c.where() + ": " + e.getMessage(), e);
    }
    assertNotEquals(
        t.graph().find(l),
        t.graph().find(r),
        c.where() + ": both sides are the same term or given equal");
    assertArrayEquals(
        t.graph().data(l).shape(),
        t.graph().data(r).shape(),
        c.where()
            + ": the sides have different shapes, "
            + t.graph().data(l)
            + " and "
            + t.graph().data(r));
    return new Sides(t, l, r);
  }
}
