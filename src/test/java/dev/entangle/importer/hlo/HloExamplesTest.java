package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.entangle.cli.CliRun;
import dev.entangle.cli.ExampleCase;
import dev.entangle.cli.RealWorldCase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The examples written in HLO text ({@code examples/*} folders holding {@code gs.hlo}): their
 * {@code gs.json} and {@code gd.json} are exactly what {@code entangle import} makes of the {@code
 * .hlo} files with the arguments their {@code expected.json} lists, so the checks of every example
 * ({@code ExamplesCheckTest}) check the HLO path too.
 */
class HloExamplesTest {
  @TempDir Path tmp;

  private static List<ExampleCase> hloExamples() {
    return ExampleCase.all().stream().filter(c -> Files.exists(c.dir().resolve("gs.hlo"))).toList();
  }

  @Test
  void thereAreHloExamplesOfBothVerdicts() {
    List<ExampleCase> cases = hloExamples();
    assertFalse(
        cases.stream().filter(ExampleCase::refines).toList().isEmpty(), "a refining HLO example");
    assertFalse(
        cases.stream().filter(c -> !c.refines()).toList().isEmpty(), "a bug written in HLO");
  }

  @TestFactory
  Stream<DynamicTest> theShippedGraphsAreTheImportOfTheHloSources() {
    return hloExamples().stream()
        .map(
            c ->
                DynamicTest.dynamicTest(
                    c.name(),
                    () -> {
                      RealWorldCase asImported = new RealWorldCase(c.name(), c.dir(), c.expected());
                      for (String side : List.of("import_gs", "import_gd")) {
                        Path out =
                            Files.createDirectories(tmp.resolve(c.name())).resolve(side + ".json");
                        CliRun run = asImported.runImport(side, out);
                        assertEquals(0, run.exitCode(), run::transcript);
                        Path shipped =
                            c.dir().resolve(side.equals("import_gs") ? "gs.json" : "gd.json");
                        assertEquals(
                            read(shipped),
                            read(out),
                            shipped
                                + " is not the import of the .hlo source: re-import it ("
                                + "see examples/README.md)");
                      }
                    }));
  }

  private static String read(Path p) throws IOException {
    return Files.readString(p);
  }
}
