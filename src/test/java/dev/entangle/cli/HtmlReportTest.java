package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The page's text, without a browser: folded lists, G_d drawn, the case's name. */
class HtmlReportTest {
  @TempDir Path tmp;

  private String page(String example, int exit, Object... extra) throws IOException {
    Path html = tmp.resolve("page.html");
    ExampleCase c =
        ExampleCase.all().stream().filter(e -> e.name().equals(example)).findFirst().orElseThrow();
    Object[] args = new Object[extra.length + 2];
    args[0] = "--html";
    args[1] = html;
    System.arraycopy(extra, 0, args, 2, extra.length);
    CliRun run = c.check(args);
    assertEquals(exit, run.exitCode(), run::transcript);
    return Files.readString(html);
  }

  @Test
  void aLongListIsFoldedAndTheInputsTableComesFirst() throws IOException {
    String page = page("bug-gqa-tiled-kv", 1);
    assertTrue(
        page.contains("<details id=\"explored-list\"><summary>G_d tensors explored for it (16)"));
    assertTrue(page.indexOf("id=\"inputs-table\"") < page.indexOf("id=\"explored-list\""));
  }

  @Test
  void aShortListIsOpen() throws IOException {
    String page = page("bug-mlp-missing-allreduce", 1);
    assertTrue(page.contains("<details id=\"explored-list\" open>"), page);
    assertTrue(page.contains("<svg id=\"gd-drawing\""), "G_d is drawn");
    assertFalse(page.contains("\u2026"), "nothing cut");
  }

  @Test
  void theTitleIsTheNameGivenElseTheCasesFolder() throws IOException {
    assertTrue(page("mlp-tp2", 0).contains("<title>entangle: mlp-tp2 refines</title>"));
    assertTrue(
        page("mlp-tp2", 0, "--name", "two-layer MLP")
            .contains("<title>entangle: two-layer MLP refines</title>"));
  }
}
