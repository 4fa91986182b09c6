package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HLO path beyond the shared dumps: the Llama decoder of {@link LlamaHlo} at 2, 4 and 8 ranks
 * and 1, 2, 4 and 8 layers (whose outputs run past five, printed with XLA's {@code
 * /*index=5*}{@code /} comments), imported from HLO text and checked end to end, with its bug
 * variants.
 */
class GeneratedLlamaTest {
  @TempDir Path tmp;

  @TestFactory
  Stream<DynamicTest> everyDegreeAndDepthRefines() {
    return Stream.of(
            new int[] {2, 1},
            new int[] {4, 1},
            new int[] {8, 1},
            new int[] {2, 2},
            new int[] {4, 2},
            new int[] {4, 4},
            new int[] {8, 4},
            new int[] {8, 8})
        .map(
            c ->
                DynamicTest.dynamicTest(
                    "tp" + c[0] + "-l" + c[1],
                    () -> {
                      JsonNode report = check(LlamaHlo.llama3(c[1]), c[0], LlamaHlo.Bug.NONE, "ok");
                      assertEquals(
                          "refines", report.path("verdict").asText(), report::toPrettyString);
                    }));
  }

  @TestFactory
  Stream<DynamicTest> aKeyBlockSlicedFromTheQueryRangeIsFoundWhereTheKeyIsUsed() {
    return Stream.of(new int[] {2, 1}, new int[] {4, 2}, new int[] {8, 4})
        .map(
            c ->
                DynamicTest.dynamicTest(
                    "tp" + c[0] + "-l" + c[1],
                    () -> {
                      JsonNode report =
                          check(LlamaHlo.llama3(c[1]), c[0], LlamaHlo.Bug.K_SLICE, "k");
                      assertEquals(
                          "not-refined", report.path("verdict").asText(), report::toPrettyString);
                      String op = report.path("failure").path("operator").asText();
                      assertTrue(
                          op.startsWith("multiply.")
                              || op.startsWith("subtract.")
                              || op.startsWith("add."),
                          "expected the first use of the key in the rotary embedding, got " + op);
                    }));
  }

  @TestFactory
  Stream<DynamicTest> aMissingAllReduceIsFoundAtTheResidualAdd() {
    return Stream.of(2, 4)
        .map(
            tp ->
                DynamicTest.dynamicTest(
                    "tp" + tp,
                    () -> {
                      JsonNode report =
                          check(LlamaHlo.llama3(1), tp, LlamaHlo.Bug.NO_ALL_REDUCE, "ar");
                      assertEquals(
                          "not-refined", report.path("verdict").asText(), report::toPrettyString);
                      assertTrue(
                          Set.of("add", "convert")
                              .contains(
                                  report.path("failure").path("operator").asText().split("\\.")[0]),
                          report::toPrettyString);
                    }));
  }

  private JsonNode check(LlamaHlo model, int tp, LlamaHlo.Bug bug, String tag) throws IOException {
    Path dir = tmp.resolve("tp" + tp + "-l" + model.layers() + "-" + tag);
    return HloChecks.check(
        dir, model.program(1, LlamaHlo.Bug.NONE), model.program(tp, bug), tp, model.relation(tp));
  }
}
