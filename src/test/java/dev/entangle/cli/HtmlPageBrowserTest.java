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
    return page("bug-mlp-missing-allreduce", 1);
  }

  private Path page(String example, int exit, Object... extra) {
    Path html = tmp.resolve("page.html");
    ExampleCase c =
        ExampleCase.all().stream().filter(e -> e.name().equals(example)).findFirst().orElseThrow();
    List<Object> args = new ArrayList<>(List.of("--html", html));
    args.addAll(List.of(extra));
    CliRun run = c.check(args.toArray());
    assertEquals(exit, run.exitCode(), run::transcript);
    return html;
  }

  @Test
  void nothingOnTheFailurePageIsCutAndGdIsDrawnWhereItDiverges() throws Exception {
    assumeChromium();
    Browsed b = browse(failurePage(), "--dump-dom");
    String dom = b.out();
    assertTrue(dom.contains("data-ready=\"yes\""), "the page's script did not finish:\n" + dom);
    assertTrue(
        dom.contains("data-cut=\"0\""),
        "texts outside their boxes: " + attribute(dom, "data-cut-texts"));
    assertFalse(dom.contains("\u2026"), "a text cut with an ellipsis");
    // t_1's second relation (58 characters) is drawn in full, over as many lines as it takes
    String rel = "transpose(concat(r0.fc2_weight, r1.fc2_weight, dim=1), 0, 1)";
    assertTrue(drawnText(dom, "t_1").contains(rel.replace(" ", "")), drawnText(dom, "t_1"));
    assertTrue(dom.contains("<svg id=\"gd-drawing\""), "no drawing of G_d");
    assertTrue(
        dom.contains("class=\"node diverging alert selected\" tabindex=\"0\" data-name=\"r0.add\""),
        "G_d's first diverging tensor r0.add is highlighted and selected");
    assertTrue(drawnText(dom, "r0.add").contains("scripts/example_models.py:85"), "its line");
    assertTrue(dom.contains("<div id=\"gd-details\" class=\"details\">r0.add (aten.add.Tensor)"));
    assertTrue(dom.contains("<title>entangle: bug-mlp-missing-allreduce not-refined</title>"));
    assertEquals(List.of(), b.consoleLines(), "console messages:\n" + b.log());
  }

  @Test
  void theCutTextCheckSeesATextWiderThanItsBox() throws Exception {
    assumeChromium();
    Path page = failurePage();
    String html = Files.readString(page);
    String wide = ">" + "x".repeat(80) + "</text>";
    Files.writeString(page, html.replaceFirst(">fc2_bias</text>", wide));
    String dom = browse(page, "--dump-dom").out();
    assertTrue(dom.contains("data-cut=\"1\""), attribute(dom, "data-cut"));
  }

  @Test
  void theRefinesPageShowsTheCertificateLemmasAndTimeUnderTheCasesName() throws Exception {
    assumeChromium();
    Browsed b = browse(page("mlp-tp4", 0, "--name", "my MLP"), "--dump-dom");
    String dom = b.out();
    assertTrue(dom.contains("<title>entangle: my MLP refines</title>"), dom);
    assertTrue(dom.contains("<h1>my MLP</h1>"));
    assertTrue(dom.contains("<table id=\"output-relation-table\">"));
    assertTrue(dom.contains("<code>add_1</code></td><td><code>r0.add_1</code>"), "the certificate");
    assertTrue(dom.contains("<table id=\"stats-table\">"), "statistics");
    assertTrue(dom.contains("<code>concat-parts</code>"), "the lemmas applied");
    assertTrue(dom.contains("<th>time</th>"));
    assertEquals(List.of(), b.consoleLines(), "console messages:\n" + b.log());
  }

  /** The texts of the drawn box of that name, joined without spaces. */
  private static String drawnText(String dom, String name) {
    int at = dom.indexOf("data-name=\"" + name + "\"");
    assertTrue(at >= 0, "no box " + name);
    int end = dom.indexOf("</g>", at);
    StringBuilder b = new StringBuilder();
    var m = java.util.regex.Pattern.compile("<text[^>]*>([^<]*)</text>").matcher(dom);
    m.region(at, end);
    while (m.find()) {
      b.append(m.group(1));
    }
    return b.toString().replace(" ", "");
  }

  private static String attribute(String dom, String name) {
    var m = java.util.regex.Pattern.compile(name + "=\"([^\"]*)\"").matcher(dom);
    return m.find() ? m.group(1) : "(no " + name + ")";
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
