package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.cli.CliRun;
import dev.entangle.cli.Reports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared real HLO dumps ({@code ../shared/realworld-hlo}) printed as XLA prints larger
 * programs, made on the fly (nothing copied): {@code /*index=N*}{@code /} comments every fifth item
 * of operand lists, tuple types and signatures; a comment before every item; layouts with tiling;
 * the ROOT tuple lengthened by replicated parameters in G_s and G_d alike, so that it runs past
 * five items. Each variant must reach its case's expected verdict, and the plain and commented
 * imports must be the same graphs. Skipped, saying so, where the folder is absent.
 */
@Tag("realworld")
class RealWorldHloVariantsTest {
  @TempDir Path tmp;

  /** The parameters that {@code ri.json} of every case replicates, added to the ROOT tuple. */
  private static final List<String> REPLICATED = List.of("p0.1", "p1.2", "p2.3", "p8.9", "p11.12");

  @TestFactory
  Stream<DynamicTest> everyVariantKeepsItsVerdict() {
    if (!Files.isDirectory(RealWorldHloTest.ROOT)) {
      return Stream.of(DynamicTest.dynamicTest("real-world HLO variants", this::assumePresent));
    }
    List<DynamicTest> tests = new ArrayList<>();
    for (Path dir : caseDirs()) {
      JsonNode expected = Reports.read(dir.resolve("expected.json"));
      List<String> verdicts = List.of(expected.get("verdict").asText().split("\\|"));
      variants()
          .forEach(
              (name, variant) ->
                  tests.add(
                      DynamicTest.dynamicTest(
                          dir.getFileName() + " " + name,
                          () -> {
                            JsonNode report = check(dir, expected, variant, name);
                            String verdict = report.path("verdict").asText();
                            assertTrue(
                                verdicts.contains(verdict),
                                () -> name + ": " + verdict + "\n" + report.toPrettyString());
                          })));
    }
    return tests.stream();
  }

  @TestFactory
  Stream<DynamicTest> commentsChangeNoNode() {
    if (!Files.isDirectory(RealWorldHloTest.ROOT)) {
      return Stream.of(DynamicTest.dynamicTest("real-world HLO comments", this::assumePresent));
    }
    return caseDirs().stream()
        .map(
            dir ->
                DynamicTest.dynamicTest(
                    dir.getFileName().toString(),
                    () -> {
                      String gd = Files.readString(dir.resolve("gd.hlo"));
                      String commented = indexComments(gd, 1);
                      assertTrue(commented.contains("/*index=1*/"), "the variant has comments");
                      Path a = Files.writeString(tmp.resolve("a.hlo"), gd);
                      Path b = Files.writeString(tmp.resolve("b.hlo"), commented);
                      for (int r = 0; r < 2; r++) {
                        assertEquals(
                            HloImporter.importRanks(List.of(a), 2).rank(r).nodes(),
                            HloImporter.importRanks(List.of(b), 2).rank(r).nodes());
                      }
                    }));
  }

  /** Each variant: a rewriting of G_s's and G_d's text. */
  private static Map<String, UnaryOperator<String>> variants() {
    Map<String, UnaryOperator<String>> out = new LinkedHashMap<>();
    out.put("index-comments-every-5", t -> indexComments(t, 5));
    out.put("index-comments-everywhere", t -> indexComments(t, 1));
    out.put("tiled-layouts", RealWorldHloVariantsTest::tiledLayouts);
    out.put("long-root-tuple", t -> tiledLayouts(indexComments(longRoot(t), 5)));
    return out;
  }

  private JsonNode check(Path dir, JsonNode expected, UnaryOperator<String> variant, String name)
      throws IOException {
    Path out = Files.createDirectories(tmp.resolve(dir.getFileName() + "-" + name));
    Path gs = importSide(dir, out, expected.get("import_gs"), variant, "gs.json");
    Path gd = importSide(dir, out, expected.get("import_gd"), variant, "gd.json");
    String written = Files.readString(out.resolve("gd.hlo"));
    assertTrue(!written.equals(Files.readString(dir.resolve("gd.hlo"))), "the variant differs");
    if (name.equals("long-root-tuple")) {
      assertTrue(
          Pattern.compile("(?m)^  ROOT .*\\) tuple\\(.*/\\*index=5\\*/%p").matcher(written).find(),
          () ->
              "the ROOT tuple runs past five items, commented as XLA does: "
                  + written.lines().filter(l -> l.startsWith("  ROOT %tuple")).toList());
    }
    Path report = out.resolve("report.json");
    CliRun run = CliRun.check(gs, gd, dir.resolve("ri.json"), "--json", report);
    assertTrue(Files.exists(report), run::transcript);
    return Reports.read(report);
  }

  /** Imports one side's files, each rewritten, with the case's other arguments. */
  private static Path importSide(
      Path dir, Path out, JsonNode args, UnaryOperator<String> variant, String json)
      throws IOException {
    List<Object> argv = new ArrayList<>();
    argv.add("import");
    for (JsonNode a : args) {
      String s = a.asText();
      Path f = dir.resolve(s);
      if (s.endsWith(".hlo") && Files.isRegularFile(f)) {
        argv.add(Files.writeString(out.resolve(s), variant.apply(Files.readString(f))));
      } else {
        argv.add(s);
      }
    }
    Path target = out.resolve(json);
    argv.add("-o");
    argv.add(target);
    CliRun run = CliRun.run(argv.toArray());
    assertEquals(0, run.exitCode(), run::transcript);
    return target;
  }

  /**
   * {@code /*index=K*}{@code /} before every item K (K a multiple of {@code every}) of every
   * parenthesized list outside braces and strings: operand lists, tuple types, signatures, the
   * entry layout's tuples, as XLA's printer writes them after ", ".
   */
  static String indexComments(String text, int every) {
    StringBuilder sb = new StringBuilder(text.length() + text.length() / 8);
    Deque<int[]> stack = new ArrayDeque<>(); // {bracket, items so far}
    int braces = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      sb.append(c);
      if (c == '"') {
        int j = i + 1;
        while (j < text.length() && text.charAt(j) != '"') {
          j += text.charAt(j) == '\\' ? 2 : 1;
        }
        sb.append(text, i + 1, Math.min(j + 1, text.length()));
        i = j;
        continue;
      }
      if (c == '{' && opensBody(text, i) || c == '}' && closesBody(text, i)) {
        continue; // a computation's braces
      }
      switch (c) {
        case '{' -> {
          braces++;
          stack.push(new int[] {c, 0});
        }
        case '}' -> {
          braces--;
          stack.pop();
        }
        case '(', '[' -> stack.push(new int[] {c, 0});
        case ')', ']' -> stack.pop();
        case ',' -> {
          int[] top = stack.peek();
          if (top != null && top[0] == '(' && braces == 0 && ++top[1] % every == 0) {
            while (i + 1 < text.length() && text.charAt(i + 1) == ' ') {
              sb.append(text.charAt(++i));
            }
            sb.append("/*index=").append(top[1]).append("*/");
          }
        }
        default -> {}
      }
    }
    return sb.toString();
  }

  private static boolean opensBody(String text, int i) {
    int end = text.indexOf('\n', i);
    String rest = text.substring(i + 1, end < 0 ? text.length() : end);
    return rest.isBlank() || rest.strip().startsWith("//");
  }

  private static boolean closesBody(String text, int i) {
    int start = text.lastIndexOf('\n', i - 1) + 1;
    return text.substring(start, i).isBlank();
  }

  /**
   * Every layout with a tiling and a memory space: {@code {2,1,0}} becomes {@code
   * {2,1,0:T(8,128)S(1)}}.
   */
  static String tiledLayouts(String text) {
    return text.replaceAll("](\\{[0-9,]*)}", "]$1:T(8,128)S(1)}");
  }

  /**
   * The ENTRY's ROOT tuple with the replicated parameters appended, its type and the ENTRY's
   * signature and layout likewise.
   */
  static String longRoot(String text) {
    List<String> types = new ArrayList<>();
    for (String p : REPLICATED) {
      Matcher m =
          Pattern.compile("(?m)^\\s*%" + Pattern.quote(p) + " = (\\S+) parameter").matcher(text);
      assumeTrue(m.find(), "no parameter " + p);
      types.add(m.group(1));
    }
    String extraTypes = String.join(", ", types);
    String extraNames = String.join(", ", REPLICATED.stream().map(p -> "%" + p).toList());
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    int entry = -1;
    for (int i = 0; i < lines.size(); i++) {
      String l = lines.get(i);
      if (l.startsWith("ENTRY ")) {
        entry = i;
        int arrow = l.lastIndexOf(") {");
        lines.set(
            i,
            l.substring(0, arrow)
                + ", "
                + extraTypes.replaceAll("\\{[0-9,]*}", "")
                + l.substring(arrow));
      } else if (entry >= 0 && l.startsWith("  ROOT ") && l.contains(" tuple(")) {
        int typeEnd = l.indexOf(") tuple(");
        int opsEnd = l.indexOf(')', typeEnd + ") tuple(".length());
        lines.set(
            i,
            l.substring(0, typeEnd)
                + ", "
                + extraTypes
                + l.substring(typeEnd, opsEnd)
                + ", "
                + extraNames
                + l.substring(opsEnd));
      } else if (i == 0 && l.startsWith("HloModule ")) {
        int end = l.lastIndexOf(")}");
        if (end > 0) {
          lines.set(i, l.substring(0, end) + ", " + extraTypes + l.substring(end));
        }
      }
    }
    assumeTrue(entry >= 0, "no ENTRY line");
    return String.join("\n", lines);
  }

  private static List<Path> caseDirs() {
    try (Stream<Path> dirs = Files.list(RealWorldHloTest.ROOT)) {
      return dirs.filter(d -> Files.exists(d.resolve("expected.json"))).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void assumePresent() {
    assumeTrue(
        Files.isDirectory(RealWorldHloTest.ROOT),
        "skipped: the real-world HLO folder " + RealWorldHloTest.ROOT + " is absent");
  }
}
