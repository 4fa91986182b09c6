package dev.entangle.eval;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.graph.Node;
import dev.entangle.numbers.CleanSearch;
import dev.entangle.numbers.RelationLayouts;
import dev.entangle.numbers.SearchResult;
import dev.entangle.numbers.sampling.InputSampler;
import dev.entangle.numbers.sampling.SampledInputs;
import dev.entangle.relation.ExprPrinter;
import dev.entangle.relation.RelationReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * The examples on numbers: for a correct parallelization every G_s output equals a clean expression
 * of G_d's outputs on sampled inputs; for a bug, the operator the checker names has no clean
 * expression over any G_d value, or, when it is a G_s output that G_d computes but does not return,
 * none over G_d's outputs.
 */
class ExamplesNumericTest {
  private static final Path EXAMPLES = Path.of("examples");

  /** The values of one example on inputs drawn with one seed. */
  private record Run(Graph gs, Evaluation s, DistributedGraph gd, Evaluation d) {
    static Run of(Path dir, long seed) {
      Graph gs = GraphJson.readGraph(dir.resolve("gs.json"));
      DistributedGraph gd = GraphJson.readDistributed(dir.resolve("gd.json"));
      OpTable table = new OpTable();
      SampledInputs in =
          new InputSampler(
                  gs, gd, RelationReader.read(dir.resolve("ri.json"), gd.worldSize()), table)
              .sample(seed, WorkBudget.defaults());
      LoweredEvaluator evaluator = new LoweredEvaluator(table, WorkBudget.defaults());
      return new Run(gs, evaluator.evaluate(gs, in.gs()), gd, evaluator.evaluate(gd, in.gd()));
    }

    boolean isOutput(String name) {
      return gs.outputs().stream()
          .anyMatch(a -> a instanceof Arg.NodeRef ref && ref.name().equals(name));
    }

    List<GdValue> gdValues(boolean outputsOnly) {
      Set<String> outputs = new HashSet<>();
      for (int r = 0; r < gd.worldSize(); r++) {
        for (Arg a : gd.rank(r).outputs()) {
          if (a instanceof Arg.NodeRef ref) {
            outputs.add("r" + r + "." + ref.name());
          }
        }
      }
      List<GdValue> out = new ArrayList<>();
      for (Evaluation.Entry e : d.entries()) {
        if (e.value() instanceof Value.Known k && (!outputsOnly || outputs.contains(e.label()))) {
          out.add(new GdValue(e.rank(), e.node(), k.tensor()));
        }
      }
      return out;
    }
  }

  private static String readString(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static List<Path> cases(String verdict) throws IOException {
    List<Path> out = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(EXAMPLES)) {
      for (Path dir :
          dirs.filter(d -> Files.exists(d.resolve("expected.json"))).sorted().toList()) {
        JsonNode expected = new ObjectMapper().readTree(dir.resolve("expected.json").toFile());
        if (expected.get("verdict").asText().equals(verdict)) {
          out.add(dir);
        }
      }
    }
    assertFalse(out.isEmpty(), "no " + verdict + " examples");
    return out;
  }

  @TestFactory
  Stream<DynamicTest> everyOutputOfACorrectParallelizationIsACleanExpressionOfTheOutputs()
      throws IOException {
    return cases("refines").stream()
        // outputs related by a mean across ranks (stated in the relation's expectations) are not
        // searched for: the clean search on numbers does not guess means
        .filter(dir -> !readString(dir.resolve("ri.json")).contains("mean("))
        .map(
            dir ->
                DynamicTest.dynamicTest(
                    dir.getFileName().toString(),
                    () -> {
                      for (long seed : new long[] {1, 2}) {
                        Run run = Run.of(dir, seed);
                        CleanSearch search =
                            new CleanSearch(
                                run.gdValues(true),
                                RelationLayouts.of(
                                    RelationReader.read(
                                        dir.resolve("ri.json"), run.gd().worldSize())),
                                CleanSearch.DEFAULT_WORK);
                        for (Arg a : run.gs().outputs()) {
                          String name = ((Arg.NodeRef) a).name();
                          SearchResult r = search.search(run.s().tensor(-1, name).orElseThrow());
                          assertInstanceOf(SearchResult.Found.class, r, () -> name + ": " + r);
                        }
                      }
                    }));
  }

  @TestFactory
  Stream<DynamicTest> theOperatorABugBreaksHasNoCleanExpression() throws IOException {
    return cases("not-refined").stream()
        .map(
            dir ->
                DynamicTest.dynamicTest(
                    dir.getFileName().toString(),
                    () -> {
                      String operator =
                          new ObjectMapper()
                              .readTree(dir.resolve("expected.json").toFile())
                              .get("operator")
                              .asText();
                      Run run = Run.of(dir, 1);
                      // a tuple operator (convolution_backward) breaks one of its items
                      List<String> values = new ArrayList<>();
                      if (run.s().tensor(-1, operator).isPresent()) {
                        values.add(operator);
                      } else {
                        for (Node n : run.gs().nodes()) {
                          if (!n.args().isEmpty()
                              && n.args().get(0) instanceof Arg.NodeRef r
                              && r.name().equals(operator)
                              && run.s().tensor(-1, n.name()).isPresent()) {
                            values.add(n.name());
                          }
                        }
                      }
                      List<String> found = new ArrayList<>();
                      for (String name : values) {
                        Tensor value = run.s().tensor(-1, name).orElseThrow();
                        SearchResult r = new CleanSearch(run.gdValues(false)).search(value);
                        if (r instanceof SearchResult.Found && run.isOutput(name)) {
                          // a G_s output that G_d computes but does not return
                          r = new CleanSearch(run.gdValues(true)).search(value);
                        }
                        if (r instanceof SearchResult.NotFound miss) {
                          assertTrue(
                              miss.closest() != null && miss.difference().differing() > 0,
                              miss::toString);
                          return;
                        }
                        found.add(
                            name + " = " + ExprPrinter.print(((SearchResult.Found) r).expr()));
                      }
                      throw new AssertionError(
                          operator + ": every value has a clean expression: " + found);
                    }));
  }
}
