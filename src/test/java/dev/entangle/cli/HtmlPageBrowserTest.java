package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The failure page in a real headless browser (Debian's {@code chromium}): it renders, its script
 * runs without a console message, the neighbourhood is drawn, and a screenshot of it is a picture.
 * Skipped, saying so, where no chromium is installed.
 */
class HtmlPageBrowserTest {
  private static final List<Path> CHROMIUM =
      List.of(Path.of("/usr/bin/chromium"), Path.of("/usr/bin/chromium-browser"));

  @TempDir Path tmp;

  private static Path chromium;

  @BeforeAll
  static void findChromium() {
    chromium = CHROMIUM.stream().filter(Files::isExecutable).findFirst().orElse(null);
  }

  private static void assumeChromium() {
    assumeTrue(
        chromium != null,
        "skipped: no headless browser (install Debian's chromium; looked for " + CHROMIUM + ")");
  }

  /** What the browser printed: the page after its scripts ran, and its log. */
  private record Browsed(String out, String log) {
    List<String> consoleLines() {
      return log.lines().filter(l -> l.contains(":CONSOLE")).toList();
    }
  }

  private Browsed browse(Path page, String... extra) throws IOException, InterruptedException {
    Path profile = Files.createTempDirectory(tmp, "profile");
    List<String> cmd =
        new ArrayList<>(
            List.of(
                chromium.toString(),
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile,
                "--enable-logging=stderr",
                "--v=0",
                "--virtual-time-budget=2000"));
    cmd.addAll(List.of(extra));
    cmd.add(page.toUri().toString());
    Path out = tmp.resolve("browser.out");
    Path log = tmp.resolve("browser.log");
    Process p =
        new ProcessBuilder(cmd)
            .redirectOutput(out.toFile())
            .redirectError(log.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("chromium did not finish in 120 s:\n" + Files.readString(log));
    }
    assertEquals(0, p.exitValue(), () -> "chromium failed:\n" + read(log));
    return new Browsed(read(out), read(log));
  }

  private static String read(Path f) {
    try {
      return Files.readString(f);
    } catch (IOException e) {
      return "(cannot read " + f + ")";
    }
  }

  private Path failurePage() {
    Path html = tmp.resolve("page.html");
    ExampleCase bug =
        ExampleCase.all().stream()
            .filter(c -> c.name().equals("bug-mlp-missing-allreduce"))
            .findFirst()
            .orElseThrow();
    CliRun run = bug.check("--html", html);
    assertEquals(1, run.exitCode(), run::transcript);
    return html;
  }

  @Test
  void theFailurePageRendersWithItsDrawingAndNoConsoleMessage() throws Exception {
    assumeChromium();
    Browsed b = browse(failurePage(), "--dump-dom");
    String dom = b.out();
    assertTrue(dom.contains("data-ready=\"yes\""), "the page's script did not finish:\n" + dom);
    assertTrue(dom.contains("<svg id=\"drawing\""), "no drawing");
    assertTrue(dom.contains("class=\"node operator alert selected\""), "the operator is selected");
    assertTrue(dom.contains("data-name=\"addmm_1\""));
    for (String input : List.of("fc2_bias", "gelu", "t_1")) {
      assertTrue(dom.contains("data-name=\"" + input + "\""), input);
    }
    assertTrue(dom.contains("<div id=\"details\" class=\"details\">addmm_1 (aten.addmm.default)"));
    assertTrue(dom.contains("id=\"script-errors\" hidden=\"\""), "a script error was shown");
    assertTrue(dom.contains("id=\"witness\""), "the numeric witness");
    assertEquals(List.of(), b.consoleLines(), "console messages:\n" + b.log());
  }

  @Test
  void aScreenshotOfTheFailurePageIsAPicture() throws Exception {
    assumeChromium();
    Path png = tmp.resolve("page.png");
    browse(failurePage(), "--window-size=1280,900", "--screenshot=" + png);
    assertTrue(Files.size(png) > 10_000, "screenshot of " + Files.size(png) + " bytes");
    BufferedImage img = ImageIO.read(png.toFile());
    assertEquals(1280, img.getWidth());
    assertEquals(900, img.getHeight());
    Set<Integer> colours = new HashSet<>();
    for (int y = 0; y < img.getHeight(); y += 7) {
      for (int x = 0; x < img.getWidth(); x += 7) {
        colours.add(img.getRGB(x, y));
      }
    }
    assertTrue(colours.size() > 20, "an almost blank screenshot: " + colours.size() + " colours");
  }

  @Test
  void consoleMessagesAreSeen() throws Exception {
    assumeChromium();
    Path bad = tmp.resolve("bad.html");
    Files.writeString(
        bad, "<!DOCTYPE html><html><body><script>throw new Error('seen');</script></body></html>");
    Browsed b = browse(bad, "--dump-dom");
    assertFalse(b.consoleLines().isEmpty(), "a thrown error must show in the log:\n" + b.log());
    assertTrue(b.consoleLines().get(0).contains("Uncaught Error: seen"));
  }
}
