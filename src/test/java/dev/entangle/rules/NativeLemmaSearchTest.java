package dev.entangle.rules;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.TypeInfo;
import dev.entangle.egraph.DeadlinePassed;
import dev.entangle.egraph.EGraph;
import dev.entangle.egraph.Rewrite;
import dev.entangle.egraph.RunReport;
import dev.entangle.egraph.Runner;
import dev.entangle.egraph.StopReason;
import dev.entangle.rules.linear.LinearForms;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Native lemmas are searcher and applier pairs: a search reports matches without changing the
 * e-graph, stops at its deadline, and ends when the runner has taken enough; applying the matches
 * proves the lemma's equality.
 */
class NativeLemmaSearchTest {
  /**
   * Per native lemma: terms it matches (each line one term; {@code A = B} adds both and makes them
   * equal), and a term its application makes equal to the first (it need not be in the e-graph
   * before).
   */
  private static final Map<String, String[]> CASES =
      cases(
          SliceTiling.NAME,
          new String[] {
            "x:f32[5,2]\n(slice[0 0 2 1] x)\n(slice[0 2 5 1] x)",
            "(concat[0] (slice[0 0 2 1] x) (slice[0 2 5 1] x))"
          },
          SliceOfConcat.NAME,
          new String[] {"(slice[0 1 3 1] (concat[0] a:f32[4,2] b:f32[3,2]))", "(slice[0 1 3 1] a)"},
          ConvSplitSpatial.NAME,
          new String[] {
            "(conv[1 1 1 1 1] (concat[2] a:f32[1,2,3] b:f32[1,2,3]) w:f32[2,2,3])",
            "(concat[2] (conv[1 1 1 0 1] (concat[2] (expand[1 2 1] (scalar[0.0 f32]))"
                + " (slice[2 0 4 1] (concat[2] a b))) w) (conv[1 1 1 0 1] (concat[2] (slice[2 2 6"
                + " 1] (concat[2] a b)) (expand[1 2 1] (scalar[0.0 f32]))) w))"
          },
          TensorConcatParts.NAME,
          new String[] {
            "(tanh a:f32[2,3])\nt:f32[4,3] = (concat[0] (tanh a) (exp b:f32[2,3]))",
            "(slice[0 0 2 1] t)"
          },
          ConcatParts.NAME,
          new String[] {
            "a:f32[2,3]\n(concat[0] a b:f32[4,3]) = (concat[0] c:f32[2,3] d:f32[4,3])", "c"
          },
          ConcatRegroup.NAME,
          new String[] {
            "(concat[0] a:f32[1,2] b:f32[2,2] c:f32[1,2] d:f32[3,2])\n(concat[0] a b)",
            "(concat[0] (concat[0] a b) c d)"
          },
          SumOfConcats.NAME,
          new String[] {
            "(sumn (concat[0] a0:f32[1,2] a1:f32[2,2]) (concat[0] b0:f32[1,2] b1:f32[2,2]) (concat[0]"
                + " c0:f32[1,2] c1:f32[2,2]))",
            "(concat[0] (sumn a0 b0 c0) (sumn a1 b1 c1))"
          },
          ConcatOfSums.NAME,
          new String[] {
            "(concat[0] (sumn a0:f32[1,2] a1:f32[1,2] a2:f32[1,2]) (sumn b0:f32[2,2] b1:f32[2,2]"
                + " b2:f32[2,2]))\n(concat[0] a0 b0)\n(concat[0] a1 b1)\n(concat[0] a2 b2)",
            "(sumn (concat[0] a0 b0) (concat[0] a1 b1) (concat[0] a2 b2))"
          },
          RangeTilings.ARANGE,
          new String[] {
            "(arange[0 8 1 i32])\n(arange[0 4 1 i32])\n(arange[4 8 1 i32])",
            "(concat[0] (arange[0 4 1 i32]) (arange[4 8 1 i32]))"
          },
          RangeTilings.MASK,
          new String[] {
            "(out_of_range[0 8] t:i64[5])\n(out_of_range[0 4] t)\n(out_of_range[4 8] t)",
            "(minn (out_of_range[0 4] t) (out_of_range[4 8] t))"
          },
          LogSoftmaxShards.NAME,
          new String[] {
            "(sub (sub a:f32[2,3] (expand[2 3] (maxn (ramax[1 1] a) (ramax[1 1] b:f32[2,3]))))"
                + " (expand[2 3] (log (sumn (rsum[1 1] (exp (sub a (expand[2 3] (maxn (ramax[1 1] a)"
                + " (ramax[1 1] b)))))) (rsum[1 1] (exp (sub b (expand[2 3] (maxn (ramax[1 1] a)"
                + " (ramax[1 1] b))))))))))",
            "(slice[1 0 3 1] (log_softmax[1] (concat[1] a b)))"
          },
          RangeMaskJoin.NAME,
          new String[] {
            "(minn m:bool[5] (out_of_range[0 4] t:i64[5]) (out_of_range[4 8] t))",
            "(minn m (out_of_range[0 8] t))"
          },
          RangeTilings.GRAD,
          new String[] {
            "(embedding_grad[0 10] g:f32[5,3] ids:i64[5])\n(embedding_grad[0 4] g ids)\n"
                + "(embedding_grad[4 10] g ids)",
            "(concat[0] (embedding_grad[0 4] g ids) (embedding_grad[4 10] g ids))"
          },
          ExpandTiling.NAME,
          new String[] {
            "(expand[4 6] m:f32[1])\n(expand[4 3] m)", "(concat[1] (expand[4 3] m) (expand[4 3] m))"
          },
          SumnCommonFactor.NAME,
          new String[] {
            "(sumn (mul a:f32[2] (expand[2] (scalar[3.0 f32]))) (mul b:f32[2] (expand[2] (scalar[3.0"
                + " f32]))))",
            "(mul (sumn a b) (expand[2] (scalar[3.0 f32])))"
          },
          ConstantFactorOut.NAME,
          new String[] {
            "(conv[1 1 1 0 1] (mul x:f32[1,2,3] (expand[1 2 3] (scalar[2.0 f32]))) w:f32[1,2,2])",
            "(mul (conv[1 1 1 0 1] x w) (expand[1 1 2] (scalar[2.0 f32])))"
          },
          SumnOfReshapes.NAME,
          new String[] {
            "(sumn (reshape[6] a:f32[2,3]) (reshape[6] b:f32[2,3]))", "(reshape[6] (sumn a b))"
          },
          LinearForms.NAME,
          new String[] {"(sub a:f32[2] (neg b:f32[2]))\n(sumn a b)", "(sumn a b)"},
          dev.entangle.rules.layout.BlockMapUnions.NAME,
          new String[] {
            "(concat[0] (slice[0 2 4 1] x:f32[4,2]) (slice[0 0 2 1] x))\n"
                + "(concat[0] (slice[0 2 3 1] x) (slice[0 3 4 1] x) (slice[0 0 2 1] x))",
            "(concat[0] (slice[0 2 3 1] x) (slice[0 3 4 1] x) (slice[0 0 2 1] x))"
          },
          ReshapeBack.NAME,
          new String[] {
            "x:f32[2,3]\n(reshape[6] x) = (concat[0] p:f32[3] q:f32[3])",
            "(reshape[2 3] (concat[0] p q))"
          });

  /** Name, case, name, case, ...: in order. */
  private static Map<String, String[]> cases(Object... pairs) {
    Map<String, String[]> out = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      out.put((String) pairs[i], (String[]) pairs[i + 1]);
    }
    return Collections.unmodifiableMap(out);
  }

  /** The case's terms in a fresh e-graph; returns the reader, the first term's class first. */
  private static TermReader matched(String lemma) {
    TermReader t = new TermReader();
    for (String line : CASES.get(lemma)[0].split("\n")) {
      String[] sides = line.split(" = ");
      int a = t.add(sides[0]);
      if (sides.length == 2) {
        t.graph().union(a, t.add(sides[1]));
      }
    }
    t.graph().rebuild();
    return t;
  }

  private static Rewrite<TypeInfo> rewrite(String lemma) {
    return NativeRule.REGISTRY.get(lemma).rewrite();
  }

  @Test
  void everyNativeLemmaHasACase() {
    assertEquals(new TreeSet<>(NativeRule.REGISTRY.keySet()), new TreeSet<>(CASES.keySet()));
  }

  @Test
  void aSearchReportsMatchesWithoutChangingTheEGraph() {
    for (String lemma : CASES.keySet()) {
      EGraph<TypeInfo> g = matched(lemma).graph();
      int nodes = g.nodeCount();
      List<Object> found = new ArrayList<>();
      rewrite(lemma).searcher().search(g, Long.MAX_VALUE, (c, m) -> found.add(m));
      assertFalse(found.isEmpty(), lemma + " found no match in its case");
      assertEquals(nodes, g.nodeCount(), lemma + "'s search changed the e-graph");
      assertTrue(g.isClean(), lemma);
    }
  }

  @Test
  void aSearchPastItsDeadlineStopsBeforeItsFirstMatch() {
    for (String lemma : CASES.keySet()) {
      EGraph<TypeInfo> g = matched(lemma).graph();
      List<Object> found = new ArrayList<>();
      long past = System.nanoTime() - 1;
      assertThrows(
          DeadlinePassed.class,
          () -> rewrite(lemma).searcher().search(g, past, (c, m) -> found.add(m)),
          lemma);
      assertEquals(List.of(), found, lemma);
    }
  }

  @Test
  void aSearchEndsWhenTheRunnerHasTakenEnough() {
    TermReader t = new TermReader();
    t.add("(slice[0 1 3 1] (concat[0] a:f32[4,2] b:f32[3,2]))");
    t.add("(slice[0 2 6 1] (concat[0] a b))");
    t.graph().rebuild();
    List<Object> all = new ArrayList<>();
    rewrite(SliceOfConcat.NAME).searcher().search(t.graph(), Long.MAX_VALUE, (c, m) -> all.add(m));
    assertEquals(2, all.size());
    List<Object> first = new ArrayList<>();
    rewrite(SliceOfConcat.NAME)
        .searcher()
        .search(
            t.graph(),
            Long.MAX_VALUE,
            (c, m) -> {
              first.add(m);
              return false;
            });
    assertEquals(1, first.size());
    assertEquals(
        ((SliceOfConcat.Overlap) all.get(0)).slice(),
        ((SliceOfConcat.Overlap) first.get(0)).slice());
    assertNotEquals(
        ((SliceOfConcat.Overlap) all.get(0)).slice(), ((SliceOfConcat.Overlap) all.get(1)).slice());
  }

  @Test
  void aConvolutionThatChangesTheLengthIsNotSplitWithHalos() {
    TermReader t = new TermReader();
    // stride 2; a kernel of 3 unpadded (the output shorter); padded by 2 (longer)
    t.add("(conv[1 1 2 1 1] (concat[2] a:f32[1,2,4] b:f32[1,2,4]) w:f32[2,2,3])");
    t.add("(conv[1 1 1 0 1] (concat[2] a b) w)");
    t.add("(conv[1 1 1 2 1] (concat[2] a b) w)");
    t.graph().rebuild();
    List<Object> all = new ArrayList<>();
    rewrite(ConvSplitSpatial.NAME)
        .searcher()
        .search(t.graph(), Long.MAX_VALUE, (c, m) -> all.add(m));
    assertEquals(List.of(), all);
  }

  @Test
  void anEmptySliceOfAConcatTakesNoPart() {
    TermReader t = new TermReader();
    t.add("(slice[0 4 4 1] (concat[0] a:f32[4,2] b:f32[3,2]))");
    t.graph().rebuild();
    List<Object> all = new ArrayList<>();
    rewrite(SliceOfConcat.NAME).searcher().search(t.graph(), Long.MAX_VALUE, (c, m) -> all.add(m));
    assertEquals(List.of(), all);
  }

  @Test
  void applyingTheMatchesProvesTheLemma() {
    for (var e : CASES.entrySet()) {
      TermReader t = matched(e.getKey());
      int first = t.add(e.getValue()[0].split("\n")[0].split(" = ")[0]);
      RunReport r =
          Runner.run(
              t.graph(),
              List.of(rewrite(e.getKey())),
              new Runner.Limits(1, 10_000, Long.MAX_VALUE, 1_000),
              () -> false);
      assertTrue(r.applied(0) > 0, e.getKey() + " applied nothing: " + r.stopReason());
      int expected = t.add(e.getValue()[1]);
      assertEquals(t.graph().find(first), t.graph().find(expected), e.getKey());
    }
  }

  @Test
  void aRunOfNativeLemmasPastItsDeadlineStopsAtTheTimeLimit() {
    TermReader t = matched(SliceTiling.NAME);
    RunReport r =
        Runner.run(
            t.graph(),
            List.of(rewrite(SliceTiling.NAME)),
            new Runner.Limits(5, 10_000, System.nanoTime() - 1, 1_000),
            () -> false);
    assertEquals(StopReason.TIME_LIMIT, r.stopReason());
    assertEquals(0, r.applied(0));
  }
}
