package dev.entangle.numbers.sampling;

import static dev.entangle.eval.Graphs.ref;
import static dev.entangle.eval.Graphs.type;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.IdRange;
import dev.entangle.core.OpTable;
import dev.entangle.eval.BudgetExhausted;
import dev.entangle.eval.Evaluation;
import dev.entangle.eval.Graphs;
import dev.entangle.eval.LoweredEvaluator;
import dev.entangle.eval.WorkBudget;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.relation.Expr;
import dev.entangle.relation.ExprParser;
import dev.entangle.relation.RelationEntry;
import dev.entangle.relation.RelationFile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Inputs drawn to satisfy a relation: each kind of expression inverted, equalities, bounds, seeds,
 * contradictions.
 */
class InputSamplerTest {
  /** A graph whose inputs are the given (name, shape) pairs, all float32, returning the first. */
  private static Graph inputs(Object... nameShape) {
    Graphs g = new Graphs();
    for (int i = 0; i < nameShape.length; i += 2) {
      g.input((String) nameShape[i], "float32", (long[]) nameShape[i + 1]);
    }
    return g.build((String) nameShape[0]);
  }

  private static long[] s(long... shape) {
    return shape;
  }

  /** A relation file of (gs, gd expression) pairs and equality groups. */
  private static RelationFile relation(List<String> pairs, List<List<String>> equalities) {
    List<RelationEntry> entries = new ArrayList<>();
    for (int i = 0; i < pairs.size(); i += 2) {
      entries.add(
          new RelationEntry(
              pairs.get(i), ExprParser.parse(pairs.get(i + 1)), "relations[" + i / 2 + "]"));
    }
    List<List<Expr>> eq =
        equalities.stream().map(g -> g.stream().map(ExprParser::parse).toList()).toList();
    return new RelationFile("ri.json", entries, eq, null, List.of());
  }

  private static SampledInputs sample(Graph gs, DistributedGraph gd, long seed, String... pairs) {
    return new InputSampler(gs, gd, relation(List.of(pairs), List.of()), new OpTable())
        .sample(seed, WorkBudget.defaults());
  }

  private static double[] v(SampledInputs in, int rank, String name) {
    return (rank < 0 ? in.gs() : in.gd().get(rank)).get(name).values();
  }

  @Test
  void aShardedTensorIsSplitAlongItsDim() {
    Graph gs = inputs("w", s(4, 2));
    DistributedGraph gd = Graphs.distributed(inputs("w", s(2, 2)), inputs("w", s(2, 2)));
    SampledInputs in = sample(gs, gd, 1, "w", "concat(r0.w, r1.w, dim=0)");
    double[] w = v(in, -1, "w");
    assertArrayEquals(Arrays.copyOfRange(w, 0, 4), v(in, 0, "w"));
    assertArrayEquals(Arrays.copyOfRange(w, 4, 8), v(in, 1, "w"));
  }

  @Test
  void idsAreDrawnInTheRangeTheRelationStates() {
    Graphs g = new Graphs();
    g.input("ids", "int64", new long[] {64});
    Graph gs = g.build("ids");
    Graphs r = new Graphs();
    r.input("ids", "int64", new long[] {64});
    DistributedGraph gd = Graphs.distributed(r.build("ids"));
    RelationFile rel =
        new RelationFile(
            "ri.json",
            List.of(
                new RelationEntry(
                    "ids", ExprParser.parse("r0.ids"), "relations[0]", new IdRange(100, 104))),
            List.of(),
            null,
            List.of());
    SampledInputs in =
        new InputSampler(gs, gd, rel, new OpTable()).sample(5, WorkBudget.defaults());
    for (double id : v(in, -1, "ids")) {
      assertTrue(id >= 100 && id < 104, "drawn " + id);
    }
    assertArrayEquals(v(in, -1, "ids"), v(in, 0, "ids"));
  }

  @Test
  void aReplicatedTensorIsCopiedToEveryRank() {
    Graph gs = inputs("x", s(3));
    DistributedGraph gd = Graphs.distributed(inputs("x", s(3)), inputs("x", s(3)));
    SampledInputs in = sample(gs, gd, 2, "x", "r0.x", "x", "r1.x");
    assertArrayEquals(v(in, -1, "x"), v(in, 0, "x"));
    assertArrayEquals(v(in, -1, "x"), v(in, 1, "x"));
  }

  @Test
  void aSliceFixesItsElementsAndTheRestAreDrawn() {
    Graph gs = inputs("x", s(2, 3));
    DistributedGraph gd = Graphs.distributed(inputs("big", s(2, 5)));
    SampledInputs in = sample(gs, gd, 3, "x", "slice(r0.big, dim=1, start=1, end=4)");
    double[] x = v(in, -1, "x");
    double[] big = v(in, 0, "big");
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 3; j++) {
        assertEquals(x[i * 3 + j], big[i * 5 + j + 1]);
      }
      assertTrue(Math.abs(big[i * 5]) <= 1 && Math.abs(big[i * 5 + 4]) <= 1);
    }
  }

  @Test
  void aSumIsSplitIntoRandomPartsThatAddUp() {
    Graph gs = inputs("y", s(5));
    DistributedGraph gd =
        Graphs.distributed(inputs("p", s(5)), inputs("p", s(5)), inputs("p", s(5)));
    SampledInputs in = sample(gs, gd, 4, "y", "sum(r0.p, r1.p, r2.p)");
    double[] y = v(in, -1, "y");
    for (int i = 0; i < 5; i++) {
      assertEquals(y[i], v(in, 0, "p")[i] + v(in, 1, "p")[i] + v(in, 2, "p")[i], 1e-12);
    }
    assertFalse(Arrays.equals(y, v(in, 0, "p")));
    assertFalse(Arrays.equals(v(in, 0, "p"), v(in, 1, "p")));
  }

  @Test
  void maxAndMinGiveEachElementToOneOperandAndMoreOrLessToTheOthers() {
    Graph gs = inputs("m", s(6), "n", s(6));
    DistributedGraph gd =
        Graphs.distributed(inputs("m", s(6), "n", s(6)), inputs("m", s(6), "n", s(6)));
    SampledInputs in = sample(gs, gd, 5, "m", "max(r0.m, r1.m)", "n", "min(r0.n, r1.n)");
    for (int i = 0; i < 6; i++) {
      assertEquals(v(in, -1, "m")[i], Math.max(v(in, 0, "m")[i], v(in, 1, "m")[i]));
      assertEquals(v(in, -1, "n")[i], Math.min(v(in, 0, "n")[i], v(in, 1, "n")[i]));
      assertNotEquals(v(in, 0, "m")[i], v(in, 1, "m")[i]);
    }
  }

  @Test
  void transposesPermutesAndReshapesAreUndone() {
    Graph gs = inputs("t", s(2, 3), "r", s(2, 3), "q", s(2, 3));
    DistributedGraph gd = Graphs.distributed(inputs("t", s(3, 2), "flat", s(6), "q", s(3, 2, 1)));
    SampledInputs in =
        sample(
            gs,
            gd,
            6,
            "t",
            "transpose(r0.t, 0, 1)",
            "r",
            "reshape(r0.flat, [2, -1])",
            "q",
            "squeeze(permute(r0.q, [1, 0, 2]), 2)");
    double[] t = v(in, -1, "t");
    double[] q = v(in, -1, "q");
    for (int i = 0; i < 2; i++) {
      for (int j = 0; j < 3; j++) {
        assertEquals(t[i * 3 + j], v(in, 0, "t")[j * 2 + i]);
        assertEquals(q[i * 3 + j], v(in, 0, "q")[j * 2 + i]);
      }
    }
    assertArrayEquals(v(in, -1, "r"), v(in, 0, "flat"));
  }

  @Test
  void tensorsTiedInTheDistributedGraphGetOneValue() {
    Graph gs = inputs("embed", s(4), "head", s(4));
    DistributedGraph gd = Graphs.distributed(inputs("w", s(4)));
    SampledInputs in = sample(gs, gd, 7, "embed", "r0.w", "head", "r0.w");
    assertArrayEquals(v(in, -1, "embed"), v(in, -1, "head"));
  }

  @Test
  void equalitiesHold() {
    Graph gs = inputs("x", s(2));
    DistributedGraph gd =
        Graphs.distributed(inputs("x", s(2), "kv", s(4)), inputs("x", s(2), "kv", s(4)));
    RelationFile rel =
        relation(
            List.of("x", "r0.x", "x", "r1.x"),
            List.of(
                List.of(
                    "slice(r0.kv, dim=0, start=0, end=2)", "slice(r1.kv, dim=0, start=0, end=2)")));
    SampledInputs in =
        new InputSampler(gs, gd, rel, new OpTable()).sample(8, WorkBudget.defaults());
    assertArrayEquals(
        Arrays.copyOfRange(v(in, 0, "kv"), 0, 2), Arrays.copyOfRange(v(in, 1, "kv"), 0, 2));
    assertFalse(
        Arrays.equals(
            Arrays.copyOfRange(v(in, 0, "kv"), 2, 4), Arrays.copyOfRange(v(in, 1, "kv"), 2, 4)));
  }

  @Test
  void aContradictoryRelationIsReportedWithTheEntry() {
    Graph gs = inputs("a", s(4));
    DistributedGraph gd = Graphs.distributed(inputs("x", s(2), "y", s(2)));
    SamplingException e =
        assertThrows(
            SamplingException.class,
            () ->
                sample(
                    gs, gd, 9, "a", "concat(r0.x, r0.y, dim=0)", "a", "concat(r0.y, r0.x, dim=0)"));
    assertTrue(
        e.getMessage()
            .startsWith("ri.json: relations[1] (gs \"a\"): r0.y at [0] would have to be both "),
        e.getMessage());
    assertTrue(
        e.getMessage()
            .endsWith(
                "; the relation is contradictory (or relates inputs the sequential graph"
                    + " samples independently)"),
        e.getMessage());
  }

  @Test
  void anEqualityTheEntriesContradictIsReported() {
    Graph gs = inputs("a", s(2));
    DistributedGraph gd = Graphs.distributed(inputs("p", s(1), "q", s(1)));
    RelationFile rel =
        relation(List.of("a", "concat(r0.p, r0.q, dim=0)"), List.of(List.of("r0.p", "r0.q")));
    SamplingException e =
        assertThrows(
            SamplingException.class,
            () -> new InputSampler(gs, gd, rel, new OpTable()).sample(10, WorkBudget.defaults()));
    assertTrue(
        e.getMessage().startsWith("ri.json: equalities[0]: r0.q at [0] is "), e.getMessage());
  }

  @Test
  void anOperandTwiceInASumIsReportedNotGuessed() {
    Graph gs = inputs("a", s(2));
    DistributedGraph gd = Graphs.distributed(inputs("p", s(2)));
    SamplingException e =
        assertThrows(SamplingException.class, () -> sample(gs, gd, 11, "a", "sum(r0.p, r0.p)"));
    assertTrue(e.getMessage().startsWith("ri.json: relations[0] (gs \"a\"): "), e.getMessage());
  }

  @Test
  void integerIdsStayInsideTheTableTheyIndex() {
    Graph gs =
        new Graphs()
            .input("w", "float32", 5, 3)
            .input("ids", "int64", 40)
            .input("other", "int64", 40)
            .call("e", "aten.embedding.default", type("float32", 40, 3), ref("w"), ref("ids"))
            .build("e");
    Graph rank = new Graphs().input("w", "float32", 5, 3).input("ids", "int64", 40).build("w");
    DistributedGraph gd = Graphs.distributed(rank);
    for (long seed = 0; seed < 5; seed++) {
      SampledInputs in = sample(gs, gd, seed, "w", "r0.w", "ids", "r0.ids");
      for (double id : v(in, -1, "ids")) {
        assertTrue(id >= 0 && id < 5 && id == Math.rint(id), "id " + id);
      }
      for (double id : v(in, -1, "other")) {
        assertTrue(id >= 0 && id < RandomValues.DEFAULT_INT_BOUND, "id " + id);
      }
      assertArrayEquals(v(in, -1, "ids"), v(in, 0, "ids"));
    }
  }

  @Test
  void theSameSeedDrawsTheSameInputs() {
    Graph gs = inputs("w", s(4, 2), "b", s(2));
    DistributedGraph gd =
        Graphs.distributed(inputs("w", s(2, 2), "b", s(2)), inputs("w", s(2, 2), "b", s(2)));
    String[] rel = {"w", "concat(r0.w, r1.w, dim=0)", "b", "sum(r0.b, r1.b)"};
    SampledInputs a = sample(gs, gd, 42, rel);
    SampledInputs b = sample(gs, gd, 42, rel);
    SampledInputs c = sample(gs, gd, 43, rel);
    for (int r = -1; r < 2; r++) {
      assertArrayEquals(v(a, r, "w"), v(b, r, "w"));
      assertArrayEquals(v(a, r, "b"), v(b, r, "b"));
    }
    assertFalse(Arrays.equals(v(a, -1, "w"), v(c, -1, "w")));
    assertEquals(42, a.seed());
  }

  @Test
  void aCutPointGetsAValueOnBothSides() {
    Graph gs =
        new Graphs()
            .input("x", "float32", 3)
            .call("y", "aten.neg.default", type("float32", 3), ref("x"))
            .call("z", "aten.neg.default", type("float32", 3), ref("y"))
            .build("z");
    Graph rank =
        new Graphs()
            .input("x", "float32", 3)
            .call("y", "aten.neg.default", type("float32", 3), ref("x"))
            .build("y");
    SampledInputs in = sample(gs, Graphs.distributed(rank), 12, "y", "r0.y");
    assertArrayEquals(v(in, -1, "y"), v(in, 0, "y"));
    assertTrue(in.gs().containsKey("x") && in.gd().get(0).containsKey("x"));
    Evaluation e = new LoweredEvaluator(new OpTable(), WorkBudget.defaults()).evaluate(gs, in.gs());
    double[] z = e.tensor(-1, "z").orElseThrow().values();
    for (int i = 0; i < 3; i++) {
      assertEquals(-v(in, -1, "y")[i], z[i]);
    }
  }

  @Test
  void inputsPastTheBudgetAreNotDrawn() {
    Graph gs = inputs("w", s(1000, 1000));
    DistributedGraph gd = Graphs.distributed(inputs("w", s(1000, 1000)));
    BudgetExhausted e =
        assertThrows(
            BudgetExhausted.class,
            () ->
                new InputSampler(gs, gd, relation(List.of("w", "r0.w"), List.of()), new OpTable())
                    .sample(1, new WorkBudget(Long.MAX_VALUE, 1_500_000)));
    assertEquals(
        "the evaluation budget is exhausted: the input r0.w holds 1000000 elements, but only 500000 of the"
            + " limit of 1500000 remain",
        e.getMessage());
  }

  private static void assertArrayEquals(double[] a, double[] b) {
    org.junit.jupiter.api.Assertions.assertArrayEquals(a, b, 0.0);
  }
}
