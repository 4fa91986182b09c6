package dev.entangle.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.entangle.graph.Arg;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Imports every printed graph under {@code ../shared/realworld} (TorchDynamo dumps of real models)
 * with the options its case's {@code expected.json} gives, and checks the result against the
 * printed code, counted independently here.
 */
class RealWorldImportTest {
  static final Path ROOT = Path.of("../shared/realworld");
  private static final Pattern ASSIGNMENT =
      Pattern.compile("^\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*(:\\s*\"[^\"]*\"\\s*)?=\\s*(.*)$");
  private static final Pattern SIGNATURE_PARAM =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)\\s*:\\s*\"");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Every imported graph by its file. */
  private static final Map<Path, Graph> GRAPHS = new LinkedHashMap<>();

  @BeforeAll
  static void importAll() throws IOException {
    if (!Files.isDirectory(ROOT)) {
      return;
    }
    GRAPHS.clear();
    List<Path> cases;
    try (Stream<Path> s = Files.list(ROOT)) {
      cases = s.filter(Files::isDirectory).sorted().toList();
    }
    for (Path dir : cases) {
      Path expected = dir.resolve("expected.json");
      if (Files.exists(expected)) {
        JsonNode e = JSON.readTree(expected.toFile());
        importCase(dir, e.get("import_gs"));
        importCase(dir, e.get("import_gd"));
      }
    }
    List<Path> all;
    try (Stream<Path> s = Files.walk(ROOT)) {
      all = s.filter(p -> p.toString().endsWith(".py")).sorted().toList();
    }
    for (Path p : all) {
      if (!GRAPHS.containsKey(p)) {
        GRAPHS.put(p, GraphCodeImporter.importGraph(p, constantsOf(p)));
      }
    }
  }

  /** Runs one case's import arguments: FILE... [--constant NAME=VALUE]... */
  private static void importCase(Path dir, JsonNode argv) {
    List<Path> files = new ArrayList<>();
    Map<String, Double> constants = new HashMap<>();
    for (int i = 0; i < argv.size(); i++) {
      String a = argv.get(i).asText();
      if (a.equals("--constant")) {
        String[] kv = argv.get(++i).asText().split("=", 2);
        constants.put(kv[0], Double.parseDouble(kv[1]));
      } else {
        files.add(dir.resolve(a));
      }
    }
    ImportOptions opts = new ImportOptions(Map.of(), constants, List.of());
    if (files.size() == 1) {
      GRAPHS.put(files.get(0), GraphCodeImporter.importGraph(files.get(0), opts));
    } else {
      var d = GraphCodeImporter.importRanks(files, opts);
      assertEquals(files.size(), d.worldSize());
      for (int k = 0; k < files.size(); k++) {
        GRAPHS.put(files.get(k), d.rank(k));
      }
    }
  }

  private static ImportOptions constantsOf(Path p) throws IOException {
    Map<String, Double> constants = new HashMap<>();
    Matcher m = Pattern.compile("self\\.(_tensor_constant\\d+)").matcher(Files.readString(p));
    while (m.find()) {
      constants.put(m.group(1), 0.0);
    }
    return new ImportOptions(Map.of(), constants, List.of());
  }

  private static void assumeData() {
    assumeTrue(
        Files.isDirectory(ROOT),
        "skipped: the real-world graphs folder "
            + ROOT.toAbsolutePath().normalize()
            + " is absent");
  }

  @Test
  void everyPrintedGraphIsImported() throws IOException {
    assumeData();
    long files;
    try (Stream<Path> s = Files.walk(ROOT)) {
      files = s.filter(p -> p.toString().endsWith(".py")).count();
    }
    assertTrue(files > 0);
    assertEquals(files, GRAPHS.size());
  }

  @Test
  void oneNodePerPlaceholderAndAssignmentPlusTheOutput() throws IOException {
    assumeData();
    for (Map.Entry<Path, Graph> e : GRAPHS.entrySet()) {
      List<String> body = forwardLines(e.getKey());
      int placeholders = countPlaceholders(body);
      int assignments = 0;
      for (String line : body.subList(1, body.size())) {
        for (String stmt : line.split(";")) {
          Matcher m = ASSIGNMENT.matcher(stmt);
          if (m.matches()
              && !m.group(3).trim().equals("None")
              && !m.group(3).trim().endsWith("= None")) {
            assignments++;
          }
        }
      }
      Graph g = e.getValue();
      assertEquals(placeholders, g.placeholders().size(), e.getKey() + " placeholders");
      assertEquals(placeholders + assignments + 1, g.nodes().size(), e.getKey() + " nodes");
    }
  }

  @Test
  void everyNodeHasATypeAndRefersOnlyToEarlierNodes() {
    assumeData();
    for (Map.Entry<Path, Graph> e : GRAPHS.entrySet()) {
      Graph g = e.getValue();
      for (Node n : g.nodes()) {
        String where = e.getKey() + " node " + n.name();
        if (n.op() == NodeOp.OUTPUT) {
          assertTrue(n.meta().types().isEmpty(), where);
        } else if (n.meta().tuple()) {
          assertFalse(n.meta().types().isEmpty(), where);
        } else {
          assertNotNull(n.type(), where);
        }
        List<Arg> refs = new ArrayList<>(n.args());
        refs.addAll(n.kwargs().values());
        for (String ref : nodeRefs(refs)) {
          Node target = g.node(ref);
          assertNotNull(target, where + " refers to " + ref);
          assertTrue(target.index() < n.index(), where + " refers to the later " + ref);
        }
      }
    }
  }

  @Test
  void theOutputsAreTheItemsOfTheReturn() throws IOException {
    assumeData();
    for (Map.Entry<Path, Graph> e : GRAPHS.entrySet()) {
      String ret = null;
      for (String line : forwardLines(e.getKey())) {
        if (line.trim().startsWith("return ")) {
          ret = line.trim();
        }
      }
      assertNotNull(ret, e.getKey().toString());
      String inner =
          ret.substring(
              ret.indexOf(ret.contains("[") ? '[' : '(') + 1,
              ret.indexOf(ret.contains("[") ? ']' : ')'));
      long items = Stream.of(inner.split(",")).filter(s -> !s.isBlank()).count();
      assertEquals(items, e.getValue().outputs().size(), e.getKey().toString());
      assertEquals(NodeOp.OUTPUT, e.getValue().nodes().get(e.getValue().nodes().size() - 1).op());
    }
  }

  @Test
  void knownShapesTagsAndStackTraces() {
    assumeData();
    Graph gpt = GRAPHS.get(ROOT.resolve("gpt-tp2-l1/gs.py"));
    assertEquals(TensorType.of("float32", 98304, 768), gpt.node("primals_1").type());
    assertEquals(TensorType.of("float32", 12288, 768), gpt.node("view_2").type());
    assertEquals(0.0, gpt.node("_tensor_constant0").meta().value());
    assertEquals(TensorType.of("int64"), gpt.node("_tensor_constant0").type());
    assertEquals(
        "File \"/opt/tiger/Megatron-LM/megatron/core/tensor_parallel/layers.py\", line 697,"
            + " in linear_with_grad_accumulation_and_async_allreduce\n"
            + "    return LinearWithGradAccumulationAndAsyncCommunication.apply(*args)",
        gpt.node("view_2").meta().stackTrace());
    Graph gd = GRAPHS.get(ROOT.resolve("gpt-tp2-l1/gd.r1.py"));
    assertEquals(
        List.of(new Arg.NodeRef("getitem_2"), new Arg.IntArg(2), new Arg.StrArg("12")),
        gd.node("all_gather_into_tensor").args());

    Graph qwen = GRAPHS.get(ROOT.resolve("qwen2-tp2/gd.r0.py"));
    Node attention = qwen.node("auto_functionalized_2");
    assertEquals("higher_order.auto_functionalized", attention.target());
    assertEquals(new Arg.StrArg("vllm.unified_attention_with_output.default"), attention.arg(0));
    assertEquals(new Arg.ListArg(List.of(new Arg.StrArg("output"))), attention.kwarg("_mutated"));
    assertEquals(TensorType.of("bfloat16", 32768, 6, 128), attention.meta().types().get(1));

    Graph bug = GRAPHS.get(ROOT.resolve("bug-missing-allreduce-wrong-config/gs.py"));
    Node tagged = bug.resolve("module.module.embedding.word_embeddings.weight");
    assertNotNull(tagged);
    assertEquals("aten.alias.default", tagged.target());
    assertEquals(TensorType.of("float16", 98304, 1536), tagged.type());
    assertEquals(46, bug.placeholders().size());
  }

  @Test
  void everyNameTheRelationFilesUseResolvesInGs() throws IOException {
    assumeData();
    for (Path dir : GRAPHS.keySet().stream().map(Path::getParent).distinct().toList()) {
      Path ri = dir.resolve("ri.json");
      Graph gs = GRAPHS.get(dir.resolve("gs.py"));
      if (!Files.exists(ri) || gs == null) {
        continue;
      }
      JsonNode rel = JSON.readTree(ri.toFile());
      List<String> names = new ArrayList<>();
      rel.path("relations").forEach(r -> names.add(r.get("gs").asText()));
      rel.path("outputs").forEach(o -> names.add(o.asText()));
      rel.path("expect").forEach(x -> names.add(x.get("gs").asText()));
      for (String name : names) {
        assertNotNull(gs.resolve(name), ri + " names " + name);
      }
    }
  }

  /** The lines from {@code def forward} to the end of the file. */
  static List<String> forwardLines(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file);
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).trim().startsWith("def forward(")) {
        return lines.subList(i, lines.size());
      }
    }
    throw new AssertionError("no def forward in " + file);
  }

  private static int countPlaceholders(List<String> body) {
    for (String line : body) {
      if (line.contains("fx_pytree.tree_flatten_spec")) {
        String lhs = line.substring(0, line.indexOf('='));
        return (int) Stream.of(lhs.split(",")).filter(s -> !s.isBlank()).count();
      }
    }
    Matcher m = SIGNATURE_PARAM.matcher(body.get(0));
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  private static List<String> nodeRefs(List<Arg> args) {
    List<String> out = new ArrayList<>();
    for (Arg a : args) {
      if (a instanceof Arg.NodeRef r) {
        out.add(r.name());
      } else if (a instanceof Arg.ListArg l) {
        out.addAll(nodeRefs(l.items()));
      }
    }
    return out;
  }
}
