package dev.entangle.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A seeded campaign of damaged inputs, of every file kind the command line reads (graph, G_d,
 * relation, lemmas, lemma cases, manifest, printed graph code): each run ends with a verdict, or
 * with exit 2 and one paragraph that names an input file, never a stack trace, an internal error or
 * a hang; no input file is ever changed; and a false lemma never yields {@code refines}.
 */
class DamagedInputsFuzzTest {
  private static final Path EXAMPLES = CliRun.PROJECT_ROOT.resolve("examples");
  private static final Path MLP = EXAMPLES.resolve("mlp-tp2");
  private static final Path BUG = EXAMPLES.resolve("bug-mlp-missing-allreduce");
  private static final Set<Integer> VERDICT_CODES = Set.of(0, 1, 3, 4);

  /** Each run's wall-clock limit: far above a check of these inputs, far below a hang. */
  private static final Duration RUN_LIMIT = Duration.ofSeconds(60);

  private static final String LEMMAS =
      "; double negation\n(rule neg-neg (neg (neg ?x)) ?x)\n\n"
          + "; exp of a concat\n(rule exp-concat (exp (concat[?d] ?xs...)) (concat[?d] (exp ?xs)...))\n";
  private static final String CASES =
      "neg-neg: (neg (neg a:f32[2,3])) => a\n"
          + "exp-concat: (exp (concat[0] a:f32[2,3] b:f32[1,3])) => (concat[0] (exp a) (exp b))\n";
  private static final String CODE =
      "import torch\nfrom torch import device\n\nf32: type\n\n\n"
          + "class GraphModule(torch.nn.Module):\n"
          + "    def forward(self, x: \"f32[4, 8]\", w: \"f32[8, 2]\"):\n"
          + "        mm: \"f32[4, 2]\" = torch.ops.aten.mm.default(x, w);  x = w = None\n"
          + "        relu: \"f32[4, 2]\" = torch.ops.aten.relu.default(mm);  mm = None\n"
          + "        return (relu,)\n";
  private static final String[] PIECES = {
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    "\"",
    ",",
    ":",
    "\\",
    "\n",
    "\u0000",
    "-",
    "NaN",
    "1e400",
    "99999999999999999999",
    "-8",
    "8x",
    "?",
    "...",
    "null",
    "true",
    "\u00e9",
    ";",
    "=>",
    "!=>"
  };

  /** The damaged inputs, one per kind in turn: how many of each. */
  private static final int PER_KIND = 60;

  @TempDir Path tmp;

  private final Random random = new Random(20261127L);
  private int runs;

  @Test
  void damagedInputsEndInAVerdictOrALocatedError() throws IOException {
    for (int i = 0; i < PER_KIND; i++) {
      graph(i);
      distributed(i);
      relation(i);
      lemmas(i);
      cases(i);
      manifest(i);
      code(i);
    }
    assertTrue(runs >= 7 * PER_KIND, "runs: " + runs);
  }

  @Test
  void aFalseLemmaNeverYieldsRefines() throws IOException {
    String[] falseLaws = {
      "(rule f (sumn ?a ?b) ?a)",
      "(rule f (sumn ?a ?b) ?b)",
      "(rule f (sumn ?a ?b) (add ?a ?a))",
      "(rule f (sumn ?a ?b) ?a :when (= (size ?a 1) 16))",
      "(rule f (sumn ?a ?b) ?b :when (= (rank ?a) 2))",
      "(rule f (add ?a ?b) ?a)",
      "(rule f (relu ?x) ?x)",
      "(rule f (gelu[?k] ?x) ?x)",
      "(rule f (neg ?x) ?x)",
      "(rule f (mul ?x ?y) ?x)"
    };
    for (String law : falseLaws) {
      Path dir = Files.createDirectories(tmp.resolve("false-" + runs));
      Files.writeString(dir.resolve("f.lemmas"), "; a false law\n" + law + "\n");
      CliRun run = run(List.of(dir.resolve("f.lemmas")), check(BUG, "--lemmas", dir));
      assertNotEquals(0, run.exitCode(), () -> "a false lemma refined a bug:\n" + run.transcript());
    }
  }

  private void graph(int i) throws IOException {
    Path gs = damaged("gs.json", Files.readString(MLP.resolve("gs.json")), i);
    Object[] check = args("check", gs, MLP.resolve("gd.json"), "--rel", MLP.resolve("ri.json"));
    if (i % 5 == 0) {
      // a report asked onto an input: refused, whatever the input holds
      String option =
          List.of("--json", "--junit", "--sarif", "--html", "--write-relation").get(i % 4);
      Path onto = List.of(gs, MLP.resolve("gd.json"), MLP.resolve("ri.json")).get(i % 3);
      CliRun run = run(List.of(gs), append(check, option, onto));
      assertTrue(run.exitCode() == 2 && run.err().contains("refusing to write"), run::transcript);
      return;
    }
    run(List.of(gs), check);
  }

  private void distributed(int i) throws IOException {
    Path gd = damaged("gd.json", Files.readString(MLP.resolve("gd.json")), i);
    run(List.of(gd), args("check", MLP.resolve("gs.json"), gd, "--rel", MLP.resolve("ri.json")));
  }

  private void relation(int i) throws IOException {
    Path ri = damaged("ri.json", Files.readString(MLP.resolve("ri.json")), i);
    run(List.of(ri), args("check", MLP.resolve("gs.json"), MLP.resolve("gd.json"), "--rel", ri));
  }

  private void lemmas(int i) throws IOException {
    Path f = damaged("mine.lemmas", LEMMAS, i);
    Files.writeString(f.resolveSibling("mine.cases"), CASES);
    run(List.of(f), check(MLP, "--lemmas", f.getParent()));
  }

  private void cases(int i) throws IOException {
    Path f = damaged("mine.cases", CASES, i);
    Files.writeString(f.resolveSibling("mine.lemmas"), LEMMAS);
    run(List.of(f), args("lemmas", "check", f.getParent()));
  }

  private void manifest(int i) throws IOException {
    String text =
        "{\"format\": \"entangle-batch/1\", \"name\": \"fuzz\", \"cases\": [{\"name\": \"mlp\", \"gs\": \""
            + MLP.resolve("gs.json")
            + "\", \"gd\": \""
            + MLP.resolve("gd.json")
            + "\", \"rel\": \""
            + MLP.resolve("ri.json")
            + "\", \"expect\": \"refines\", \"timeout\": 60}]}";
    Path m = damaged("m.json", text, i);
    run(List.of(m), args("batch", m, "-j", "1"));
  }

  private void code(int i) throws IOException {
    Path py = damaged("g.py", CODE, i);
    run(List.of(py), args("import", py, "-o", py.resolveSibling("out.json")));
  }

  private Object[] check(Path example, Object... extra) {
    List<Object> a = new ArrayList<>();
    a.add("check");
    a.add(example.resolve("gs.json"));
    a.add(example.resolve("gd.json"));
    a.add("--rel");
    a.add(example.resolve("ri.json"));
    a.addAll(List.of(extra));
    return a.toArray();
  }

  private static Object[] append(Object[] a, Object... more) {
    List<Object> out = new ArrayList<>(List.of(a));
    out.addAll(List.of(more));
    return out.toArray();
  }

  private static Object[] args(Object... a) {
    return a;
  }

  /** {@code text} damaged one way or another, written as {@code name} in a folder of its own. */
  private Path damaged(String name, String text, int i) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("case-" + runs + "-" + i));
    Path f = dir.resolve(name);
    byte[] bytes = damage(text).getBytes(StandardCharsets.UTF_8);
    if (random.nextInt(12) == 0) {
      bytes = invalidUtf8(bytes);
    }
    Files.write(f, bytes);
    return f;
  }

  private String damage(String text) {
    int n = text.length();
    int at = random.nextInt(n + 1);
    return switch (random.nextInt(9)) {
      case 0 -> text.substring(0, at); // truncated
      case 1 -> text.substring(0, at) + text.substring(Math.min(n, at + 1 + random.nextInt(40)));
      case 2 -> text.substring(0, at) + PIECES[random.nextInt(PIECES.length)] + text.substring(at);
      case 3 -> text.substring(0, at) + nest() + text.substring(at); // deep nesting
      case 4 -> replaceNumber(text);
      case 5 ->
          text.substring(0, at) + "n".repeat(50_000 + random.nextInt(50_000)) + text.substring(at);
      case 6 -> swapWords(text);
      case 7 -> text.substring(0, at) + text.substring(at / 2, at) + text.substring(at);
      default -> "";
    };
  }

  private String nest() {
    int depth = 300 + random.nextInt(20_000);
    return switch (random.nextInt(4)) {
      case 0 -> "[".repeat(depth) + "]".repeat(depth);
      case 1 -> "(neg ".repeat(depth) + "?x" + ")".repeat(depth);
      case 2 -> "concat(".repeat(depth) + "r0.x" + ", dim=0)".repeat(depth);
      default -> "{\"a\": ".repeat(depth) + "1" + "}".repeat(depth);
    };
  }

  /** A number of the text replaced by one out of range or malformed. */
  private String replaceNumber(String text) {
    String[] bad = {"-1", "1e300", "NaN", "-8", "8x", "99999999999999999999", "0", "2147483648"};
    List<Integer> digits = new ArrayList<>();
    for (int k = 0; k < text.length(); k++) {
      if (Character.isDigit(text.charAt(k))) {
        digits.add(k);
      }
    }
    if (digits.isEmpty()) {
      return text + bad[random.nextInt(bad.length)];
    }
    int k = digits.get(random.nextInt(digits.size()));
    int end = k;
    while (end < text.length() && Character.isDigit(text.charAt(end))) {
      end++;
    }
    return text.substring(0, k) + bad[random.nextInt(bad.length)] + text.substring(end);
  }

  /** Two random words of the text swapped. */
  private String swapWords(String text) {
    String[] words = text.split("(?<=\\s)|(?=\\s)");
    if (words.length < 2) {
      return text;
    }
    int a = random.nextInt(words.length);
    int b = random.nextInt(words.length);
    String w = words[a];
    words[a] = words[b];
    words[b] = w;
    return String.join("", words);
  }

  private byte[] invalidUtf8(byte[] bytes) {
    byte[] out = bytes.clone();
    if (out.length > 0) {
      out[random.nextInt(out.length)] = (byte) (0x80 | random.nextInt(0x40));
    }
    return out;
  }

  /**
   * Runs {@code entangle ARGS} on a thread with a wall-clock limit and checks what any run must do;
   * {@code damaged} are the damaged files, among which a located error must name one of the run's
   * inputs.
   */
  private CliRun run(List<Path> damaged, Object[] args) throws IOException {
    runs++;
    Map<Path, byte[]> before = new LinkedHashMap<>();
    List<Path> inputs = new ArrayList<>(damaged);
    for (Object a : args) {
      if (a instanceof Path p && Files.isRegularFile(p)) {
        inputs.add(p);
      }
    }
    for (Path p : inputs) {
      if (Files.isRegularFile(p)) {
        before.put(p, Files.readAllBytes(p));
      }
    }
    CliRun run = assertTimeoutPreemptively(RUN_LIMIT, () -> CliRun.run(args));
    String err = run.err();
    assertFalse(err.contains("\tat "), () -> "stack trace:\n" + run.transcript());
    assertFalse(err.contains("internal error"), () -> "internal error:\n" + run.transcript());
    assertFalse(err.contains("Exception"), () -> "exception class:\n" + run.transcript());
    assertTrue(err.length() < 8000, () -> "a message of " + err.length() + " characters");
    if (run.exitCode() == 2) {
      assertTrue(err.startsWith("entangle: "), run::transcript);
      assertTrue(
          inputs.stream().anyMatch(p -> err.contains(p.getFileName().toString())),
          () -> "the error names no input file:\n" + run.transcript());
    } else {
      assertTrue(VERDICT_CODES.contains(run.exitCode()), () -> "exit code:\n" + run.transcript());
    }
    for (var e : before.entrySet()) {
      assertArrayEquals(
          e.getValue(), Files.readAllBytes(e.getKey()), () -> e.getKey() + " was changed");
    }
    return run;
  }
}
