package dev.entangle.egraph;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class MatcherTest {
  private static final int LEAF = 0;
  private static final int F = 1;
  private static final int G = 2;

  /** slice[dim start end](x) */
  private static final int SLICE = 3;

  private static Pattern v(String name) {
    return Pattern.var(name);
  }

  private static Pattern slice(AttrPattern dim, AttrPattern start, AttrPattern end, Pattern x) {
    return Pattern.node(SLICE, List.of(dim, start, end), x);
  }

  private static ENode slice(long dim, long start, long end, int x) {
    return new ENode(SLICE, new long[] {dim, start, end}, new int[] {x});
  }

  /** "?x=3, ?y=4" style strings, sorted, for readable assertions. */
  private static Set<String> show(List<Match> ms) {
    return ms.stream()
        .map(m -> "c" + m.classId() + " " + m.subst())
        .collect(Collectors.toCollection(java.util.TreeSet::new));
  }

  @Test
  void variablePatternMatchesEveryClass() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int fa = g.add(ENode.of(F, a));
    List<Match> ms = Matcher.search(g, v("x"), 100);
    assertEquals(
        List.of(
            new Match(a, Subst.EMPTY.withCls("x", a)), new Match(fa, Subst.EMPTY.withCls("x", fa))),
        ms);
  }

  @Test
  void nestedPatternsBacktrackThroughAllNodesOfEachClass() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int b = g.add(ENode.leaf(LEAF, 2));
    int fa = g.add(ENode.of(F, a));
    int gab = g.add(ENode.of(G, a, b));
    int top = g.add(ENode.of(F, fa));
    g.union(fa, gab); // the class of f(a) also holds g(a, b)
    g.rebuild();
    int mid = g.find(fa);
    // f(g(?x, ?y)) must look past f(a) in the child class to find g(a, b)
    List<Match> ms = Matcher.search(g, Pattern.node(F, Pattern.node(G, v("x"), v("y"))), 100);
    assertEquals(List.of(new Match(top, Subst.EMPTY.withCls("x", a).withCls("y", b))), ms);
    // f(?z) matches f(a) and f(f(a)) and nothing else
    assertEquals(
        Set.of("c" + mid + " {?z=" + a + "}", "c" + top + " {?z=" + mid + "}"),
        show(Matcher.search(g, Pattern.node(F, v("z")), 100)));
  }

  @Test
  void repeatedVariablesMustBindTheSameClass() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int b = g.add(ENode.leaf(LEAF, 2));
    int gaa = g.add(ENode.of(G, a, a));
    g.add(ENode.of(G, a, b));
    Pattern same = Pattern.node(G, v("x"), v("x"));
    assertEquals(
        List.of(new Match(gaa, Subst.EMPTY.withCls("x", a))), Matcher.search(g, same, 100));
    g.union(a, b);
    g.rebuild();
    assertEquals(1, Matcher.search(g, same, 100).size(), "after a = b, both are g(x, x)");
  }

  @Test
  void attributeLiteralsVariablesAndWildcards() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int x = g.add(ENode.leaf(LEAF, 1));
    int s1 = g.add(slice(0, 0, 4, x));
    int s2 = g.add(slice(1, 4, 4, x));
    int s3 = g.add(slice(0, 4, 8, x));
    AttrPattern d = AttrPattern.var("d");
    AttrPattern any = AttrPattern.any();
    // literal dimension
    assertEquals(
        Set.of(s1, s3),
        classes(Matcher.search(g, slice(AttrPattern.lit(0), any, any, v("t")), 100)));
    // a repeated attribute variable: start == end
    List<Match> eq =
        Matcher.search(g, slice(any, AttrPattern.var("k"), AttrPattern.var("k"), v("t")), 100);
    assertEquals(1, eq.size());
    assertEquals(s2, eq.get(0).classId());
    assertEquals(4, eq.get(0).subst().attr("k"));
    // bound values are reported
    List<Match> dims = Matcher.search(g, slice(d, any, AttrPattern.lit(8), v("t")), 100);
    assertEquals(List.of(new Match(s3, Subst.EMPTY.withCls("t", x).withAttr("d", 0))), dims);
    // attribute count must agree
    assertEquals(0, Matcher.search(g, Pattern.node(SLICE, List.of(any, any), v("t")), 100).size());
  }

  @Test
  void wildcardsThatBindNothingDoNotDuplicateMatches() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int x = g.add(ENode.leaf(LEAF, 1));
    int s1 = g.add(slice(0, 0, 4, x));
    int s2 = g.add(slice(0, 0, 8, x));
    g.union(s1, s2);
    g.rebuild();
    AttrPattern any = AttrPattern.any();
    List<Match> ms = Matcher.search(g, slice(any, any, any, v("t")), 100);
    assertEquals(1, ms.size(), "two nodes, one binding");
  }

  @Test
  void groundPatternsMatchWhereTheTermIs() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int fa = g.add(ENode.of(F, a));
    Pattern p = Pattern.node(F, Pattern.node(LEAF, List.of(AttrPattern.lit(1))));
    List<Match> ms = Matcher.search(g, p, 100);
    assertEquals(List.of(new Match(fa, Subst.EMPTY)), ms);
  }

  @Test
  void limitCapsTheNumberOfMatches() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    for (int i = 0; i < 10; i++) {
      g.add(ENode.leaf(LEAF, i));
    }
    assertEquals(3, Matcher.search(g, v("x"), 3).size());
    assertEquals(0, Matcher.search(g, v("x"), 0).size());
    assertEquals(10, Matcher.search(g, v("x"), Integer.MAX_VALUE).size());
    assertThrows(IllegalArgumentException.class, () -> Matcher.search(g, v("x"), -1));
  }

  @Test
  void searchClassLooksAtOneClassOnly() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int b = g.add(ENode.leaf(LEAF, 2));
    int fa = g.add(ENode.of(F, a));
    g.add(ENode.of(F, b));
    Pattern p = Pattern.node(F, v("x"));
    assertEquals(
        List.of(new Match(fa, Subst.EMPTY.withCls("x", a))), Matcher.searchClass(g, p, fa));
    assertEquals(List.of(), Matcher.searchClass(g, p, a));
  }

  @Test
  void searchingADirtyGraphIsRefused() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int b = g.add(ENode.leaf(LEAF, 2));
    g.union(a, b);
    IllegalStateException e =
        assertThrows(IllegalStateException.class, () -> Matcher.search(g, v("x"), 10));
    assertTrue(e.getMessage().contains("rebuild"), e.getMessage());
  }

  @Test
  void matchesComeInAFixedOrder() {
    EGraph<Void> g = new EGraph<>(Analysis.none());
    int a = g.add(ENode.leaf(LEAF, 1));
    int b = g.add(ENode.leaf(LEAF, 2));
    g.add(ENode.of(G, a, b));
    g.add(ENode.of(G, b, a));
    g.add(ENode.of(G, a, a));
    Matcher m = new Matcher(Pattern.node(G, v("x"), v("y")));
    List<Match> first = m.search(g, 100);
    assertEquals(first, m.search(g, 100));
    assertEquals(List.of(2, 3, 4), first.stream().map(Match::classId).toList());
  }

  private static Set<Integer> classes(List<Match> ms) {
    return ms.stream().map(Match::classId).collect(Collectors.toSet());
  }
}
