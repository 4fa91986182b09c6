package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.cli.CliRun;
import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.GraphJson;
import dev.entangle.graph.Node;
import dev.entangle.graph.NodeOp;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code entangle import} makes of an HLO module: the nodes, their names and meta, ranks,
 * groups, errors.
 */
class HloImportTest {
  @TempDir Path dir;

  private static final String ADD =
      "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
          + "  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n\n";

  private Path write(String... lines) throws IOException {
    return Files.writeString(
        dir.resolve("m.hlo"),
        "HloModule m\n\n"
            + ADD
            + "ENTRY %main () -> f32[] {\n  "
            + String.join("\n  ", lines)
            + "\n}\n");
  }

  private static Node node(Graph g, String name) {
    Node n = g.node(name);
    if (n == null) {
      throw new AssertionError(
          "no node " + name + " in " + g.nodes().stream().map(Node::name).toList());
    }
    return n;
  }

  private static String fails(Runnable r) {
    String m = assertThrows(InputException.class, r::run).getMessage();
    assertFalse(m.contains("\n"), "one paragraph: " + m);
    return m;
  }

  @Test
  void instructionsBecomeNodesNamedAfterThem() throws IOException {
    Graph g =
        HloImporter.importGraph(
            write(
                "%p9.10 = f16[4,6]{1,0} parameter(0)",
                "%dot.52 = f16[6,6]{1,0} dot(%p9.10, %p9.10), lhs_contracting_dims={0}, rhs_contracting_dims={0},"
                    + " metadata={op_type=\"dot\" source_file=\"/m/test.py\\n----\\n[\\'/m/test.py:46\\',"
                    + " \\'/env/site-packages/torch_neuronx/scribe.py:265\\', \\'/m/llama/hlo.py:261\\', \\'/m/layers/attention.py:126\\',"
                    + " \\'/m/hlo.py:1935\\', \\'/m/hlo.py:399\\', \\'/env/site-packages/torch_neuronx/scribe.py:553\\']\" source_line=46}",
                "ROOT %t = (f16[6,6]{1,0}, f16[4,6]{1,0}) tuple(%dot.52, %p9.10)"));
    Node p = node(g, "p9.10");
    assertEquals(NodeOp.PLACEHOLDER, p.op());
    assertEquals("float16[4, 6]", p.type().toString());
    Node d = node(g, "dot.52");
    assertEquals("xla.dot", d.target());
    assertEquals(List.of(new Arg.NodeRef("p9.10"), new Arg.NodeRef("p9.10")), d.args());
    assertEquals(new Arg.ListArg(List.of(new Arg.IntArg(0))), d.kwarg("lhs_contracting_dims"));
    assertEquals(
        "File \"/m/layers/attention.py\", line 126\nFile \"/m/hlo.py\", line 1935\nFile \"/m/hlo.py\", line 399",
        d.meta().stackTrace(),
        "the innermost user frames, library frames dropped");
    assertNull(g.node("t"), "the ROOT tuple is the output node, not a node of its own");
    assertEquals(List.of(new Arg.NodeRef("dot.52"), new Arg.NodeRef("p9.10")), g.outputs());
  }

  @Test
  void tuplesAndTheirElements() throws IOException {
    Graph g =
        HloImporter.importGraph(
            write(
                "%x = f32[2]{0} parameter(0)",
                "%y = s32[3]{0} parameter(1)",
                "%t = (f32[2]{0}, s32[3]{0}) tuple(%x, %y)",
                "%e = s32[3]{0} get-tuple-element(%t), index=1",
                "ROOT %r = s32[3]{0} negate(%e)"));
    Node t = node(g, "t");
    assertTrue(t.meta().tuple());
    assertEquals("xla.tuple", t.target());
    assertEquals(2, t.meta().types().size());
    Node e = node(g, "e");
    assertEquals("getitem", e.target());
    assertEquals(List.of(new Arg.NodeRef("t"), new Arg.IntArg(1)), e.args());
    assertEquals(List.of(new Arg.NodeRef("r")), g.outputs());
  }

  @Test
  void fusionsAndCallsAreInlined() throws IOException {
    Path f =
        Files.writeString(
            dir.resolve("f.hlo"),
            "HloModule m\n\n"
                + "%fused (p0: f32[2], p1: f32[2]) -> f32[2] {\n  %p0 = f32[2]{0} parameter(0)\n  %p1 = f32[2]{0} parameter(1)\n"
                + "  %m = f32[2]{0} multiply(%p0, %p1)\n  ROOT %n = f32[2]{0} negate(%m)\n}\n\n"
                + "ENTRY %main (x: f32[2]) -> f32[2] {\n  %x = f32[2]{0} parameter(0)\n"
                + "  ROOT %fusion.3 = f32[2]{0} fusion(%x, %x), kind=kLoop, calls=%fused\n}\n");
    Graph g = HloImporter.importGraph(f);
    assertEquals(List.of(new Arg.NodeRef("x"), new Arg.NodeRef("x")), node(g, "fusion.3/m").args());
    assertEquals("xla.negate", node(g, "fusion.3").target());
    assertEquals(List.of(new Arg.NodeRef("fusion.3/m")), node(g, "fusion.3").args());
    assertEquals(List.of(new Arg.NodeRef("fusion.3")), g.outputs());
  }

  @Test
  void literalsKeepTheirValuesOrTheirIdentity() throws IOException {
    Graph g =
        HloImporter.importGraph(
            write(
                "%s = f32[] constant(1e-05)",
                "%l = s32[3]{0} constant({1, 2, 3})",
                "%e = f32[32]{0} constant({...})",
                "ROOT %r = f32[] negate(%s)"));
    assertEquals(new Arg.FloatArg(1e-05), node(g, "s").kwarg("value"));
    assertEquals(new Arg.ListArg(List.of()), node(g, "s").kwarg("shape"));
    assertEquals(
        new Arg.ListArg(List.of(new Arg.IntArg(1), new Arg.IntArg(2), new Arg.IntArg(3))),
        node(g, "l").kwarg("values"));
    assertEquals(
        Map.of(
            "instruction",
            new Arg.StrArg("e"),
            "literal",
            new Arg.StrArg("{...}"),
            "shape",
            new Arg.ListArg(List.of(new Arg.IntArg(32)))),
        node(g, "e").kwargs());
  }

  @Test
  void reducersAndInitialValuesAreNamed() throws IOException {
    Graph g =
        HloImporter.importGraph(
            write(
                "%x = f32[2,3]{1,0} parameter(0)",
                "%z = f32[] constant(0)",
                "ROOT %r = f32[2]{0} reduce(%x, %z), dimensions={1}, to_apply=%add"));
    Node r = node(g, "r");
    assertEquals(new Arg.StrArg("add"), r.kwarg("reducer"));
    assertEquals(new Arg.ListArg(List.of(new Arg.FloatArg(0))), r.kwarg("init_values"));
  }

  @Test
  void eachRankHasItsOwnPartitionIdAndOffsets() throws IOException {
    Path f =
        write(
            "%x = f32[8]{0} parameter(0)",
            "%pid = u32[] partition-id()",
            "%four = u32[] constant(4)",
            "%off = u32[] multiply(%pid, %four)",
            "ROOT %s = f32[4]{0} dynamic-slice(%x, %off), dynamic_slice_sizes={4}");
    DistributedGraph gd = HloImporter.importRanks(List.of(f), 2);
    assertEquals(2, gd.worldSize());
    for (int r = 0; r < 2; r++) {
      Graph g = gd.rank(r);
      assertEquals(new Arg.IntArg(r), node(g, "pid").kwarg("value"));
      assertEquals(new Arg.IntArg(4L * r), node(g, "off").kwarg("value"));
      Node s = node(g, "s");
      assertEquals("xla.slice", s.target());
      assertEquals(new Arg.ListArg(List.of(new Arg.IntArg(4L * r))), s.kwarg("start_indices"));
      assertEquals(List.of(new Arg.NodeRef("x")), s.args());
    }
  }

  @Test
  void collectivesAreFunctionalCollectivesOfTheirReplicaGroups() throws IOException {
    Path f =
        write(
            "%x = f32[4,2]{1,0} parameter(0)",
            "%a = f32[4,2]{1,0} all-reduce(%x), replica_groups={{0,1},{2,3}}, to_apply=%add",
            "ROOT %g = f32[4,8]{1,0} all-gather(%a), replica_groups={}, dimensions={1}");
    DistributedGraph gd = HloImporter.importRanks(List.of(f), 4);
    assertEquals(
        Map.of("0,1", List.of(0, 1), "2,3", List.of(2, 3), "0,1,2,3", List.of(0, 1, 2, 3)),
        gd.processGroups());
    Graph r2 = gd.rank(2);
    Node start = node(r2, "a.start");
    assertEquals("_c10d_functional.all_reduce.default", start.target());
    assertEquals(
        List.of(new Arg.NodeRef("x"), new Arg.StrArg("sum"), new Arg.StrArg("2,3")), start.args());
    assertEquals("_c10d_functional.wait_tensor.default", node(r2, "a").target());
    assertEquals("xla.transpose", node(r2, "g.t").target());
    assertEquals("_c10d_functional.all_gather_into_tensor.default", node(r2, "g.start").target());
    assertEquals("float32[8, 4]", node(r2, "g.start").type().toString());
    assertEquals("xla.transpose", node(r2, "g").target());
    assertEquals("float32[4, 8]", node(r2, "g").type().toString());
  }

  @Test
  void anAsynchronousGatherKeepsItsElementType() throws IOException {
    Path f =
        write(
            "%x = f16[4,2]{1,0} parameter(0)",
            "%s = (f16[4,2]{1,0}, f16[4,4]{1,0}) all-gather-start(%x), replica_groups={{0,1}}, dimensions={1}",
            "ROOT %g = f16[4,4]{1,0} all-gather-done(%s)");
    Graph r1 = HloImporter.importRanks(List.of(f), 2).rank(1);
    assertEquals("float16[2, 4]", node(r1, "s.t").type().toString());
    assertEquals("float16[4, 4]", node(r1, "s").type().toString());
    assertEquals(List.of(new Arg.NodeRef("s")), node(r1, "g").args());
  }

  @Test
  void collectivesOfOtherRanksNeedRanks() throws IOException {
    Path f =
        write(
            "%x = f32[4]{0} parameter(0)",
            "ROOT %a = f32[4]{0} all-reduce(%x), replica_groups={{0,1}}, to_apply=%add");
    String m = fails(() -> HloImporter.importGraph(f));
    assertTrue(m.startsWith(f + ":11: `a` names rank 1, but the program is imported as 1 rank"), m);
    assertTrue(m.contains("--ranks N"), m);
    String none = fails(() -> HloImporter.importRanks(List.of(f), 3));
    assertTrue(none.contains("lists no replica group holding rank 2"), none);
  }

  @Test
  void unsupportedFormsAreNamed() throws IOException {
    Path mul =
        Files.writeString(
            dir.resolve("mul.hlo"),
            "HloModule m\n\n"
                + "%mul (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
                + "  ROOT %s = f32[] multiply(%a, %b)\n}\n\nENTRY %main () -> f32[4] {\n  %x = f32[4]{0} parameter(0)\n"
                + "  ROOT %a = f32[4]{0} all-reduce(%x), replica_groups={{0,1}}, to_apply=%mul\n}\n");
    String m = fails(() -> HloImporter.importRanks(List.of(mul), 2));
    assertTrue(
        m.contains(
            "all-reduce with a reducer other than add, maximum or minimum (`mul`) is not supported yet"),
        m);
    String tuple =
        fails(
            () -> {
              try {
                HloImporter.importGraph(
                    write(
                        "%x = (f32[2]{0}, f32[]) parameter(0)",
                        "ROOT %e = f32[] get-tuple-element(%x), index=1"));
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            });
    assertTrue(tuple.contains("the parameter `x` is a tuple, which is not supported yet"), tuple);
    String token =
        fails(
            () -> {
              try {
                HloImporter.importGraph(
                    write("%t = token[] after-all()", "ROOT %x = f32[] constant(1)"));
              } catch (IOException e) {
                throw new AssertionError(e);
              }
            });
    assertTrue(token.contains("the instruction `t` (`after-all`) is not supported"), token);
    assertTrue(token.contains("Why: tokens order side effects"), token);
  }

  @Test
  void theImportCommandTellsHloByItsContent() throws IOException {
    Path f =
        write(
            "%x = f32[4]{0} parameter(0)",
            "ROOT %a = f32[4]{0} all-reduce(%x), replica_groups={{0,1}}, to_apply=%add");
    Path out = dir.resolve("gd.json");
    CliRun run = CliRun.run("import", f, "--ranks", "2", "-o", out);
    assertEquals(0, run.exitCode(), run::transcript);
    assertEquals("wrote " + out, run.out().strip());
    DistributedGraph gd = GraphJson.readDistributed(out);
    assertEquals(2, gd.worldSize());
    assertEquals(Map.of("0,1", List.of(0, 1)), gd.processGroups());
    assertEquals(
        HloImporter.importRanks(List.of(f), 2).rank(1).nodes(),
        gd.rank(1).nodes(),
        "the JSON reads back");

    Path txt = Files.copy(f, dir.resolve("program.txt"));
    assertEquals(
        0, CliRun.run("import", "--format", "hlo", txt, "--ranks", "2", "-o", out).exitCode());
    CliRun fx = CliRun.run("import", "--format", "fx", txt, "-o", out);
    assertEquals(2, fx.exitCode(), fx::transcript);
    CliRun bad = CliRun.run("import", "--format", "onnx", f, "-o", out);
    assertEquals(2, bad.exitCode());
    assertTrue(
        bad.err()
            .contains(
                "--format onnx: expected fx (printed torch.fx code), pt2 (torch.export archive) or hlo"),
        bad::transcript);
    CliRun constant = CliRun.run("import", f, "--ranks", "2", "--constant", "c=1", "-o", out);
    assertEquals(2, constant.exitCode());
    assertTrue(constant.err().contains("apply to printed torch.fx code"), constant::transcript);
    Path py =
        Files.writeString(
            dir.resolve("g.py"),
            "class GraphModule(torch.nn.Module):\n    def forward(self):\n"
                + "        return ()\n");
    CliRun ranks = CliRun.run("import", py, "--ranks", "2", "-o", out);
    assertEquals(2, ranks.exitCode());
    assertTrue(ranks.err().contains("--ranks applies to XLA HLO modules"), ranks::transcript);
    Path custom =
        Files.writeString(
            dir.resolve("c.hlo"),
            "HloModule m\n\nENTRY %e () -> f32[2] {\n"
                + "  %x = f32[2]{0} parameter(0)\n  ROOT %c = f32[2]{0} custom-call(%x), custom_call_target=\"MyKernel\"\n}\n");
    CliRun note = CliRun.run("import", custom, "-o", out);
    assertEquals(0, note.exitCode(), note::transcript);
    assertTrue(
        note.err().contains("stay opaque") && note.err().contains("{MyKernel=1}"),
        note::transcript);
    assertEquals("", run.err(), "no note when every custom call is declared");
    CliRun twoFiles = CliRun.run("import", f, f, "--ranks", "3", "-o", out);
    assertEquals(2, twoFiles.exitCode());
    assertTrue(twoFiles.err().contains("--ranks 3 with 2 HLO modules"), twoFiles::transcript);
  }
}
