package dev.entangle.eval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.importer.GraphCodeImporter;
import dev.entangle.importer.ImportOptions;
import dev.entangle.numbers.CleanSearch;
import dev.entangle.numbers.SearchResult;
import dev.entangle.numbers.sampling.InputSampler;
import dev.entangle.numbers.sampling.SampledInputs;
import dev.entangle.relation.RelationFile;
import dev.entangle.relation.RelationReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The evaluator on the real-world graphs kept next to the project ({@code ../shared/realworld}),
 * skipped, saying so, where they are absent.
 */
class RealWorldNumericTest {
  private static final Path ROOT = Path.of("../shared/realworld");

  private static Path folder(String name) {
    assumeTrue(
        Files.isDirectory(ROOT),
        "skipped: the real-world graphs folder "
            + ROOT.toAbsolutePath().normalize()
            + " is absent");
    return ROOT.resolve(name);
  }

  private static DistributedGraph ranks(Path dir, int n) {
    List<Path> files = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      files.add(dir.resolve("gd.r" + r + ".py"));
    }
    return GraphCodeImporter.importRanks(files, ImportOptions.defaults());
  }

  /**
   * Micro-batch losses added to the running total without the 1/2: the expected pair differs on
   * numbers, the loss counted twice.
   */
  @Test
  void gradientAccumulationWithoutScalingHasAWitness() {
    Path dir = folder("bug-grad-accumulation");
    Graph gs = GraphCodeImporter.importGraph(dir.resolve("gs.py"), ImportOptions.defaults());
    DistributedGraph gd = ranks(dir, 1);
    RelationFile rel = RelationReader.read(dir.resolve("ri.json"), 1);
    OpTable table = new OpTable();
    SampledInputs in = new InputSampler(gs, gd, rel, table).sample(1, WorkBudget.defaults());
    LoweredEvaluator evaluator = new LoweredEvaluator(table, WorkBudget.defaults());
    Tensor loss = evaluator.evaluate(gs, in.gs()).tensor(-1, "add_1").orElseThrow();
    Evaluation d = evaluator.evaluate(gd, in.gd());
    Tensor accumulated = d.tensor(0, "add_3").orElseThrow();
    double total = in.gs().get("arg4_1").at(0);
    assertEquals(total, in.gd().get(0).get("arg4_1").at(0));
    assertEquals(2 * (loss.at(0) - total), accumulated.at(0) - total, 1e-9);
    List<GdValue> values = new ArrayList<>();
    for (Evaluation.Entry e : d.entries()) {
      if (e.value() instanceof Value.Known k) {
        values.add(new GdValue(e.rank(), e.node(), k.tensor()));
      }
    }
    assertInstanceOf(SearchResult.NotFound.class, new CleanSearch(values).search(loss));
  }

  /**
   * A model with a vocabulary of 151936 rows does not fit the default budget: sampling stops and
   * says where.
   */
  @Test
  void aModelPastTheBudgetIsNotSampled() {
    Path dir = folder("qwen2-tp2");
    Graph gs = GraphCodeImporter.importGraph(dir.resolve("gs.py"), ImportOptions.defaults());
    DistributedGraph gd = ranks(dir, 2);
    RelationFile rel = RelationReader.read(dir.resolve("ri.json"), 2);
    BudgetExhausted e =
        assertThrows(
            BudgetExhausted.class,
            () -> new InputSampler(gs, gd, rel, new OpTable()).sample(1, WorkBudget.defaults()));
    assertTrue(
        e.getMessage()
            .startsWith(
                "the evaluation budget is exhausted: the input arg1_1 holds 233373696"
                    + " elements, but only "),
        e.getMessage());
  }
}
