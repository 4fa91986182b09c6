package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.check.CheckInputs;
import dev.entangle.check.CheckPipeline;
import dev.entangle.check.CheckSettings;
import dev.entangle.cli.CliRun;
import dev.entangle.core.CoreOp;
import dev.entangle.rules.LemmaLibrary;
import dev.entangle.rules.Lemmas;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * A hot G_d value (one with many users, such as a rotary table every layer reads) has only its
 * users near the operator looked at when exploring ({@link OperatorCheck}'s hot users), which must
 * bring in exactly what looking at all its users brings in. Every example is checked with every
 * value hot (more than one user) and with none, and the two checks must agree operator by operator
 * (mapped or not, e-graph size, G_d values explored) and in the result (verdict, output relation,
 * failure).
 */
class HotValuesTest {
  private static final Lemmas LEMMAS =
      LemmaLibrary.load(List.of(CliRun.PROJECT_ROOT.resolve("lemmas")));

  @TestFactory
  Stream<DynamicTest> everyValueHotOrNoneGivesTheSameCheck() throws IOException {
    List<Path> examples = new ArrayList<>();
    try (Stream<Path> dirs = Files.list(CliRun.PROJECT_ROOT.resolve("examples"))) {
      dirs.filter(d -> Files.isRegularFile(d.resolve("gs.json"))).sorted().forEach(examples::add);
    }
    assertTrue(examples.size() > 50, "the examples are where they were: " + examples.size());
    return examples.stream()
        .map(d -> DynamicTest.dynamicTest(d.getFileName().toString(), () -> same(d)));
  }

  private static void same(Path d) {
    String none = trace(d, Integer.MAX_VALUE);
    for (int hot : new int[] {1, 2, 3}) {
      assertEquals(none, trace(d, hot), d.getFileName() + ": values of " + hot + "+ users hot");
    }
  }

  /** What the check did and found, as text. */
  private static String trace(Path d, int hotUsers) {
    CheckInputs in =
        CheckInputs.read(d.resolve("gs.json"), d.resolve("gd.json"), d.resolve("ri.json"));
    CheckSettings settings =
        new CheckSettings(
            CheckOptions.defaults().withHotUsers(hotUsers),
            false,
            1,
            CheckSettings.DRAWS,
            4_000_000_000L);
    StringBuilder sb = new StringBuilder();
    CheckListener listener =
        new CheckListener() {
          @Override
          public void operatorChecked(
              int index, int total, CoreOp op, CheckListener.OperatorSummary o) {
            sb.append(op.name())
                .append(o.mapped() ? " mapped" : " unmapped")
                .append(", nodes ")
                .append(o.nodes())
                .append(", explored ")
                .append(o.explored())
                .append('\n');
          }
        };
    CheckResult r =
        CheckPipeline.check(
            in, CheckPipeline.lower(in), LEMMAS, settings, listener, System.nanoTime());
    sb.append(r.verdict()).append('\n');
    for (CheckResult.OutputEntry e : r.outputRelation()) {
      sb.append(e.gs()).append(" = ").append(e.gd()).append('\n');
    }
    sb.append(r.failure() == null ? "no failure" : r.failure().toString());
    return sb.toString();
  }
}
