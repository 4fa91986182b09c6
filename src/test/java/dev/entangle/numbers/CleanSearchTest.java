package dev.entangle.numbers;

import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.i64;
import static dev.entangle.eval.Tensors.shape;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.entangle.core.Op;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.Difference;
import dev.entangle.eval.GdValue;
import dev.entangle.eval.Tensors;
import dev.entangle.relation.ExprParser;
import dev.entangle.relation.ExprPrinter;
import dev.entangle.relation.RelationEntry;
import dev.entangle.relation.RelationFile;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The numeric search for a clean expression: what it finds, and how it reports a miss. */
class CleanSearchTest {
  private static final SplittableRandom RNG = new SplittableRandom(3);

  private static Tensor random(long... shape) {
    double[] v = new double[(int) Tensor.numel(shape)];
    for (int i = 0; i < v.length; i++) {
      v[i] = RNG.nextDouble(-1, 1);
    }
    return f32(shape, v);
  }

  private static String found(SearchResult r) {
    return ExprPrinter.print(assertInstanceOf(SearchResult.Found.class, r).expr());
  }

  private static final Tensor A = random(2, 3);
  private static final Tensor B = random(2, 3);
  private static final List<GdValue> RANKS =
      List.of(
          new GdValue(0, "h", A),
          new GdValue(1, "h", B),
          new GdValue(0, "other", random(3, 2)),
          new GdValue(1, "other", random(3, 2)));

  @Test
  void findsTheConcatOfOneTensorOfEveryRank() {
    CleanSearch search = new CleanSearch(RANKS);
    assertEquals(
        "concat(r0.h, r1.h, dim=1)",
        found(search.search(Tensors.apply(Op.CONCAT, new long[] {1}, A, B))));
    assertEquals(
        "concat(r0.h, r1.h, dim=0)",
        found(search.search(Tensors.apply(Op.CONCAT, new long[] {0}, A, B))));
  }

  /**
   * A load-balanced context-parallel layout (rank 0 holds the first and last row of four, rank 1
   * the middle two), stated for the input x, is tried for every tensor the ranks hold: the output h
   * in that layout is found; in plain rank order it is not.
   */
  @Test
  void findsAValueInALayoutTheRelationStatesForAnInput() {
    RelationFile relation =
        new RelationFile(
            "ri.json",
            List.of(
                new RelationEntry(
                    "x",
                    ExprParser.parse(
                        "concat(slice(r0.x, 0, 0, 1), r1.x, slice(r0.x, 0, 1, 2), dim=0)"),
                    "ri.json:1")),
            List.of(),
            null,
            List.of());
    Tensor h0 = random(2, 3);
    Tensor h1 = random(2, 3);
    List<GdValue> values = List.of(new GdValue(0, "h", h0), new GdValue(1, "h", h1));
    Tensor laidOut =
        Tensors.apply(
            Op.CONCAT,
            new long[] {0},
            Tensors.apply(Op.SLICE, new long[] {0, 0, 1, 1}, h0),
            h1,
            Tensors.apply(Op.SLICE, new long[] {0, 1, 2, 1}, h0));
    CleanSearch search =
        new CleanSearch(values, RelationLayouts.of(relation), CleanSearch.DEFAULT_WORK);
    assertEquals(
        "concat(slice(r0.h, dim=0, start=0, end=1), r1.h, slice(r0.h, dim=0, start=1, end=2),"
            + " dim=0)",
        found(search.search(laidOut)));
    assertInstanceOf(SearchResult.NotFound.class, new CleanSearch(values).search(laidOut));
  }

  @Test
  void findsTheSumMaxAndMinAcrossRanks() {
    CleanSearch search = new CleanSearch(RANKS);
    assertEquals(
        "sum(r0.h, r1.h)", found(search.search(Tensors.apply(Op.SUMN, new long[0], A, B))));
    assertEquals(
        "max(r0.h, r1.h)", found(search.search(Tensors.apply(Op.MAXN, new long[0], A, B))));
    assertEquals(
        "min(r0.h, r1.h)", found(search.search(Tensors.apply(Op.MINN, new long[0], A, B))));
  }

  /**
   * On a 2 x 2 mesh (rank = 2 d + t), a gradient split over the tensor-parallel ranks and equal
   * along the data-parallel ones is the concat of the first block of ranks; a value summed over the
   * data-parallel ranks only is the sum of the first stride of them.
   */
  @Test
  void findsCombinationsOverTheGroupsOfATwoDimensionalMesh() {
    Tensor g0 = random(2, 3);
    Tensor g1 = random(2, 3);
    Tensor p0 = random(2, 3);
    Tensor p2 = random(2, 3);
    CleanSearch search =
        new CleanSearch(
            List.of(
                new GdValue(0, "g", g0),
                new GdValue(1, "g", g1),
                new GdValue(2, "g", g0),
                new GdValue(3, "g", g1),
                new GdValue(0, "p", p0),
                new GdValue(1, "p", random(2, 3)),
                new GdValue(2, "p", p2),
                new GdValue(3, "p", random(2, 3))));
    assertEquals(
        "concat(r0.g, r1.g, dim=0)",
        found(search.search(Tensors.apply(Op.CONCAT, new long[] {0}, g0, g1))));
    assertEquals(
        "sum(r0.p, r2.p)", found(search.search(Tensors.apply(Op.SUMN, new long[0], p0, p2))));
    assertInstanceOf(
        SearchResult.NotFound.class,
        search.search(Tensors.apply(Op.CONCAT, new long[] {0}, g1, g0)),
        "the groups keep their ranks' order");
  }

  @Test
  void findsATransposeAndAReshape() {
    CleanSearch search = new CleanSearch(RANKS);
    assertEquals(
        "transpose(r0.h, 0, 1)",
        found(search.search(Tensors.apply(Op.PERMUTE, new long[] {1, 0}, A))));
    Tensor flat = Tensors.apply(Op.CONCAT, new long[] {0}, A, B).reshaped(new long[] {12});
    assertEquals("reshape(concat(r0.h, r1.h, dim=0), [12])", found(search.search(flat)));
    Tensor transposedFlat =
        Tensors.apply(Op.PERMUTE, new long[] {1, 0}, A).reshaped(new long[] {6});
    assertEquals("reshape(transpose(r0.h, 0, 1), [6])", found(search.search(transposedFlat)));
  }

  @Test
  void findsAPermutationOfManyDimsAndATranspositionBeyondFour() {
    Tensor x = random(2, 3, 4);
    Tensor y = random(2, 1, 3, 1, 2);
    CleanSearch search = new CleanSearch(List.of(new GdValue(0, "x", x), new GdValue(0, "y", y)));
    assertEquals(
        "permute(r0.x, [2, 0, 1])",
        found(search.search(Tensors.apply(Op.PERMUTE, new long[] {2, 0, 1}, x))));
    assertEquals(
        "transpose(r0.y, 0, 2)",
        found(search.search(Tensors.apply(Op.PERMUTE, new long[] {2, 1, 0, 3, 4}, y))));
  }

  @Test
  void aTensorEqualToTheTargetComesBeforeAnyCombination() {
    Tensor sum = Tensors.apply(Op.SUMN, new long[0], A, B);
    List<GdValue> values =
        List.of(new GdValue(0, "h", A), new GdValue(1, "h", B), new GdValue(1, "reduced", sum));
    assertEquals("r1.reduced", found(new CleanSearch(values).search(sum)));
  }

  @Test
  void matchesWithinTheToleranceOfTheDtypeOnly() {
    double[] v = A.values();
    v[0] *= 1 + 1e-7;
    assertEquals("r0.h", found(new CleanSearch(RANKS).search(f32(shape(2, 3), v))));
    v[0] *= 1 + 1e-3;
    assertInstanceOf(
        SearchResult.NotFound.class, new CleanSearch(RANKS).search(f32(shape(2, 3), v)));
  }

  @Test
  void whenNothingMatchesTheClosestCandidateAndWhereItDiffersAreReported() {
    double[] v = Tensors.apply(Op.SUMN, new long[0], A, B).values();
    v[4] += 0.5;
    SearchResult.NotFound miss =
        assertInstanceOf(
            SearchResult.NotFound.class, new CleanSearch(RANKS).search(f32(shape(2, 3), v)));
    assertEquals("sum(r0.h, r1.h)", ExprPrinter.print(miss.closest()));
    Difference d = miss.difference();
    assertArrayEquals(new long[] {1, 1}, d.index());
    assertEquals(A.at(4) + B.at(4), d.candidate(), 1e-12);
    assertEquals(v[4], d.target(), 1e-12);
    assertEquals(0.5, d.maxAbs(), 1e-12);
    assertEquals(0.5 / Math.abs(v[4]), d.maxRelative(), 1e-9);
    assertEquals(1, d.differing());
    assertNull(miss.stoppedBecause());
  }

  @Test
  void tensorsOfAnotherDtypeAreNoCandidates() {
    Tensor ids = i64(shape(2), 1, 2);
    SearchResult.NotFound miss =
        assertInstanceOf(
            SearchResult.NotFound.class,
            new CleanSearch(List.of(new GdValue(0, "ids", ids))).search(f32(shape(2), 1, 2)));
    assertNull(miss.closest());
    assertEquals(0, miss.candidates());
  }

  @Test
  void theSearchStopsAtItsLimitAndSaysSo() {
    SearchResult.NotFound miss =
        assertInstanceOf(
            SearchResult.NotFound.class, new CleanSearch(RANKS, 10).search(random(2, 3)));
    assertEquals(1, miss.candidates());
    assertEquals("the search compared 6 elements, its limit is 10", miss.stoppedBecause());
  }

  @Test
  void nanMatchesOnlyNan() {
    Tensor x = f32(shape(2), 1, Double.NaN);
    assertEquals(
        "r0.x",
        found(
            new CleanSearch(List.of(new GdValue(0, "x", x))).search(f32(shape(2), 1, Double.NaN))));
    assertInstanceOf(
        SearchResult.NotFound.class,
        new CleanSearch(List.of(new GdValue(0, "x", x))).search(f32(shape(2), 1, 2)));
    assertEquals(F32, x.dtype());
  }
}
