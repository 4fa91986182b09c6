package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An output path that is an input file (by name, symbolic link or hard link) is refused with exit 2
 * before anything is written, and the input is left as it was.
 */
class OutputOverwriteTest {
  private static final Path MLP = CliRun.PROJECT_ROOT.resolve("examples/mlp-tp2");

  @TempDir Path tmp;
  private Path gs;
  private Path gd;
  private Path ri;

  @BeforeEach
  void copyExample() throws IOException {
    gs = Files.copy(MLP.resolve("gs.json"), tmp.resolve("gs.json"));
    gd = Files.copy(MLP.resolve("gd.json"), tmp.resolve("gd.json"));
    ri = Files.copy(MLP.resolve("ri.json"), tmp.resolve("ri.json"));
  }

  private Map<Path, byte[]> snapshot() throws IOException {
    return Map.of(
        gs, Files.readAllBytes(gs), gd, Files.readAllBytes(gd), ri, Files.readAllBytes(ri));
  }

  private void assertUnchanged(Map<Path, byte[]> before) throws IOException {
    for (var e : before.entrySet()) {
      assertArrayEquals(e.getValue(), Files.readAllBytes(e.getKey()), e.getKey() + " changed");
    }
  }

  @Test
  void everyCheckReportRefusesAnInput() throws IOException {
    Path link = Files.createSymbolicLink(tmp.resolve("link.json"), gs);
    Path hard = Files.createLink(tmp.resolve("hard.json"), gd);
    Map<Path, byte[]> before = snapshot();
    for (List<Object> out :
        List.<List<Object>>of(
            List.of("--json", gs),
            List.of("--junit", link),
            List.of("--sarif", hard),
            List.of("--html", tmp.resolve("./ri.json")),
            List.of("--write-relation", gd))) {
      CliRun run = CliRun.check(gs, gd, ri, out.get(0), out.get(1));
      run.assertInputError("refusing to write", (String) out.get(0), "choose another path");
      assertUnchanged(before);
    }
  }

  @Test
  void twoReportsOnOneFileAreRefused() {
    Path report = tmp.resolve("report.json");
    CliRun.check(gs, gd, ri, "--json", report, "--sarif", report)
        .assertInputError("--json writes the same file");
    assertFalse(Files.exists(report));
  }

  @Test
  void aReportIntoTheLemmaFolderIsRefused() throws IOException {
    Path lemmas = Files.createDirectory(tmp.resolve("lemmas"));
    Path file = Files.writeString(lemmas.resolve("mine.lemmas"), "; nothing yet\n");
    CliRun.check(gs, gd, ri, "--lemmas", lemmas, "--json", file)
        .assertInputError("refusing to write", "mine.lemmas");
    assertEquals("; nothing yet\n", Files.readString(file));
  }

  @Test
  void importAndDraftRefuseTheirInput() throws IOException {
    Map<Path, byte[]> before = snapshot();
    CliRun.run("import", gs, "-o", gs).assertInputError("refusing to write", "-o");
    CliRun.run("draft-relation", gs, gd, "-o", gs).assertInputError("refusing to write", "-o");
    assertUnchanged(before);
  }

  @Test
  void batchRefusesToOverwriteItsManifestOrACaseFile() throws IOException {
    Path manifest = tmp.resolve("m.json");
    String text =
        "{\"format\": \"entangle-batch/1\", \"name\": \"one\", \"cases\": [{\"name\": \"mlp\","
            + " \"gs\": \"gs.json\", \"gd\": \"gd.json\", \"rel\": \"ri.json\", \"expect\":"
            + " \"refines\"}]}";
    Files.writeString(manifest, text);
    Map<Path, byte[]> before = snapshot();
    CliRun.run("batch", manifest, "--json", manifest).assertInputError("refusing to write");
    CliRun.run("batch", manifest, "--junit", gd).assertInputError("refusing to write", "--junit");
    assertEquals(text, Files.readString(manifest));
    assertUnchanged(before);
  }

  @Test
  void aReportIsWrittenWholeWithNoTemporaryFileLeft() throws IOException {
    Path report = tmp.resolve("report.json");
    Files.writeString(report, "old");
    CliRun run = CliRun.check(gs, gd, ri, "--json", report);
    assertEquals(0, run.exitCode(), run::transcript);
    String json = Files.readString(report);
    assertEquals('{', json.charAt(0));
    assertEquals('}', json.charAt(json.length() - 1));
    try (var files = Files.list(tmp)) {
      assertEquals(
          List.of(), files.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList());
    }
  }
}
