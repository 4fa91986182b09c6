package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.graph.Arg;
import dev.entangle.graph.DistributedGraph;
import dev.entangle.graph.Graph;
import dev.entangle.graph.Node;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The constructs of HLO text beyond plain instructions: the opcode table against XLA's instruction
 * set, refused opcodes, shardings, frontend attributes, backend configs, replica groups in both
 * forms, called bodies that read the rank, tuple indices.
 */
class HloConstructsTest {
  @TempDir Path dir;

  /** XLA's opcodes as {@code HLO_OPCODE_LIST} names them (xla/hlo/ir/hlo_opcode.h). */
  private static final List<String> XLA_OPCODES =
      List.of(
          ("abs acos acosh add add-dependency after-all all-gather all-gather-done"
                  + " all-gather-start all-reduce all-reduce-done all-reduce-start all-to-all"
                  + " and asin asinh async-done async-start async-update atan atan2 atanh"
                  + " batch-norm-grad batch-norm-inference batch-norm-training bitcast"
                  + " bitcast-convert broadcast call cbrt ceil cholesky clamp"
                  + " count-leading-zeros collective-broadcast collective-permute"
                  + " collective-permute-done collective-permute-start collective-reduce"
                  + " compare complex concatenate conditional constant convert convolution"
                  + " copy copy-done copy-start cosine cosh custom-call divide domain dot"
                  + " dynamic-reshape dynamic-slice dynamic-update-slice erf exponential"
                  + " exponential-minus-one fft floor fusion gather get-dimension-size"
                  + " get-tuple-element imag infeed iota is-finite log log-plus-one logistic"
                  + " map maximum minimum mulhi multiply negate not opt-barrier or outfeed"
                  + " pad parameter partition-id popcnt power ragged-all-to-all ragged-dot"
                  + " real recv recv-done reduce reduce-precision reduce-scatter"
                  + " reduce-window remainder replica-id reshape reverse rng"
                  + " rng-bit-generator rng-get-and-update-state round-nearest-afz"
                  + " round-nearest-even rsqrt scaled-dot scan scatter select"
                  + " select-and-scatter send send-done set-dimension-size shift-left"
                  + " shift-right-arithmetic shift-right-logical shuffle sign sine sinh slice"
                  + " sort sqrt stochastic-convert subtract tan tanh topk transpose"
                  + " triangular-solve tuple while xor")
              .split(" "));

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

  private String fails(String... lines) throws IOException {
    Path f = write(lines);
    String m =
        assertThrows(InputException.class, () -> HloImporter.importRanks(List.of(f), 2))
            .getMessage();
    assertFalse(m.contains("\n"), "one paragraph: " + m);
    assertTrue(m.startsWith(f + ":"), "names the file: " + m);
    return m;
  }

  @Test
  void everyXlaOpcodeHasAStatusAndTheTableNothingElse() {
    List<String> missing = new ArrayList<>();
    for (String op : XLA_OPCODES) {
      if (HloOpcodes.of(op) == null) {
        missing.add(op);
      }
    }
    assertEquals(List.of(), missing);
    assertEquals(XLA_OPCODES.size(), HloOpcodes.all().size(), "no opcode XLA lacks");
    HloOpcodes.all()
        .forEach(
            (op, e) ->
                assertTrue(
                    e.status() != HloOpcodes.Status.REFUSED || !e.reason().isBlank(),
                    op + " is refused with a reason"));
  }

  @Test
  void loopsBranchesAndRandomNumbersAreRefusedAtTheirLine() throws IOException {
    String loop =
        fails("%x = f32[] parameter(0)", "ROOT %w = f32[] while(%x), condition=%add, body=%add");
    assertTrue(loop.contains(":11: the instruction `w` (`while`) is not supported"), loop);
    assertTrue(loop.contains("the checker has no loops"), loop);
    String branch =
        fails(
            "%p = s32[] parameter(0)",
            "%x = f32[] parameter(1)",
            "ROOT %c = f32[] conditional(%p, %x, %x), branch_computations={%add, %add}");
    assertTrue(
        branch.contains(":12: the branch `c` takes is not known from literals and the rank"),
        branch);
    String rng =
        fails(
            "%a = f32[] parameter(0)", "ROOT %r = f32[4]{0} rng(%a, %a), distribution=rng_uniform");
    assertTrue(rng.contains(":11: the instruction `r` (`rng`) is not supported"), rng);
    assertTrue(rng.contains("give the random values to the program as parameters"), rng);
    String unknown = fails("%a = f32[] parameter(0)", "ROOT %r = f32[] frobnicate(%a)");
    assertTrue(unknown.contains(":11: `frobnicate` (of `r`) is not an XLA opcode"), unknown);
  }

  @Test
  void aCalledBodyThatReadsTheRankIsRefused() throws IOException {
    Path f =
        Files.writeString(
            dir.resolve("m.hlo"),
            "HloModule m\n\n%cmp (a: f32[], b: f32[]) -> pred[] {\n  %a = f32[] parameter(0)\n"
                + "  %b = f32[] parameter(1)\n  %r = u32[] partition-id()\n"
                + "  ROOT %lt = pred[] compare(%a, %b), direction=LT\n}\n\n"
                + "ENTRY %main () -> f32[4] {\n  %x = f32[4]{0} parameter(0)\n"
                + "  ROOT %s = f32[4]{0} sort(%x), dimensions={0}, to_apply=%cmp\n}\n");
    String m =
        assertThrows(InputException.class, () -> HloImporter.importRanks(List.of(f), 2))
            .getMessage();
    assertTrue(
        m.contains(":12: `s` calls `cmp`, whose instruction `r` (line 6) is `partition-id`"), m);
  }

  @Test
  void aBodyThatCallsItselfIsAnErrorNotAStackOverflow() throws IOException {
    Path f =
        Files.writeString(
            dir.resolve("m.hlo"),
            "HloModule m\n\n%f (a: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
                + "  ROOT %m = f32[] map(%a), dimensions={}, to_apply=%g\n}\n\n"
                + "%g (a: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
                + "  ROOT %m = f32[] map(%a), dimensions={}, to_apply=%f\n}\n\n"
                + "ENTRY %main () -> f32[] {\n  %x = f32[] parameter(0)\n"
                + "  ROOT %s = f32[] map(%x), dimensions={}, to_apply=%f\n}\n");
    String m = assertThrows(InputException.class, () -> HloImporter.importGraph(f)).getMessage();
    assertTrue(m.contains("whose body calls itself"), m);
  }

  @Test
  void opaqueInstructionsKeepEveryAttributeAndTheirCalledBodies() throws IOException {
    Graph g =
        HloImporter.importGraph(
            write(
                "%x = f32[8]{0} parameter(0)",
                "%z = f32[] constant(0)",
                "ROOT %w = f32[4]{0} reduce-window(%x, %z), window={size=2 stride=2},"
                    + " to_apply=%add"));
    Node w = g.node("w");
    assertEquals("xla.reduce_window", w.target());
    assertEquals(new Arg.StrArg("{size=2 stride=2}"), w.kwarg("window"));
    assertTrue(((Arg.StrArg) w.kwarg("to_apply")).value().contains("add(%0, %1)"));
  }

  @Test
  void optimizationBarriersAndDomainsAreTheirOperand() throws IOException {
    Graph g =
        HloImporter.importGraph(
            write(
                "%x = f32[] parameter(0)",
                "%t = (f32[], f32[]) tuple(%x, %x)",
                "%b = (f32[], f32[]) opt-barrier(%t)",
                "%e = f32[] get-tuple-element(%b), index=1",
                "ROOT %n = f32[] negate(%e)"));
    assertEquals(List.of(new Arg.NodeRef("t"), new Arg.IntArg(1)), g.node("e").args());
    assertEquals(null, g.node("b"));
  }

  @Test
  void tupleIndicesAreChecked() throws IOException {
    String range =
        fails(
            "%x = f32[] parameter(0)",
            "%t = (f32[], f32[]) tuple(%x, %x)", "ROOT %e = f32[] get-tuple-element(%t), index=2");
    assertTrue(range.contains(":12: `e` takes element 2 of a tuple of 2"), range);
    String type =
        fails(
            "%x = f32[] parameter(0)",
            "%t = (f32[], f32[]) tuple(%x, %x)", "ROOT %e = s32[] get-tuple-element(%t), index=0");
    assertTrue(type.contains("`e` is typed s32[] but element 0 of its operand is f32[]"), type);
  }

  @Test
  void shardingsInEveryPrintedForm() {
    assertInstanceOf(HloSharding.Replicated.class, HloSharding.parse("{replicated}"));
    assertInstanceOf(HloSharding.Manual.class, HloSharding.parse("{manual}"));
    assertEquals(new HloSharding.Maximal(3), HloSharding.parse("{maximal device=3}"));
    HloSharding.Tiled t =
        (HloSharding.Tiled)
            HloSharding.parse(
                "{devices=[2,1,2]0,2,1,3 last_tile_dim_replicate metadata={op_name=\"a\"}}");
    assertEquals(List.of(2L, 1L, 2L), boxed(t.tiles()));
    assertEquals(List.of(0L, 2L, 1L, 3L), boxed(t.devices()));
    assertTrue(t.replicatedLastDim());
    HloSharding.Tiled iota =
        (HloSharding.Tiled)
            HloSharding.parse("{devices=[2,2]<=[2,2]T(1,0) last_tile_dims={manual}}");
    assertEquals(4, iota.devices().length);
    HloSharding.Tuple tuple =
        (HloSharding.Tuple)
            HloSharding.parse(
                "{{replicated}, {maximal device=0}, {devices=[2]0,1}, {manual}, {replicated},"
                    + " {replicated}}");
    assertEquals(6, tuple.items().size());
    for (String bad :
        List.of(
            "replicated",
            "{}x",
            "{devices=[2,2]0,1}",
            "{devices=[2,2]<=[8]}",
            "{maximal device=99999999999999999999}",
            "{replicated manual}",
            "{splendid}",
            "{devices=[99999,99999]<=[4]}")) {
      assertThrows(IllegalArgumentException.class, () -> HloSharding.parse(bad), bad);
    }
  }

  @Test
  void aDamagedShardingIsALocatedError() throws IOException {
    String m = fails("ROOT %x = f32[] parameter(0), sharding={devices=[2,2]0,1}");
    assertTrue(
        m.contains(
            ":10: the sharding of `x` does not read (the device mesh needs 4 device ids, 2 are listed)"),
        m);
  }

  @Test
  void frontendAttributesAndBackendConfigs() throws IOException {
    Path f =
        write(
            "%x = f32[] parameter(0), frontend_attributes={_xla_stream_annotation=\"1\","
                + " _scheduling_group_id=\"2\"}",
            "%a = f32[] custom-call(%x), custom_call_target=\"A\", backend_config=\"cfg \\\"q\\\"\"",
            "ROOT %b = f32[] custom-call(%a), custom_call_target=\"B\","
                + " backend_config={\"k\": [1, {\"n\": 2}], \"s\": \"x,y\"}");
    HloModule m =
        HloParser.parse(new dev.entangle.importer.SourceFile(f.toString(), Files.readString(f)));
    List<HloInstruction> ins = m.entry().instructions();
    HloAttributes x = new HloAttributes(new dev.entangle.importer.SourceFile("m", ""), ins.get(0));
    assertEquals("2", x.frontendAttributes().get("_scheduling_group_id"));
    assertEquals(
        "cfg \"q\"",
        new HloAttributes(new dev.entangle.importer.SourceFile("m", ""), ins.get(1))
            .backendConfig());
    Graph g = HloImporter.importGraph(f);
    assertEquals(
        new Arg.StrArg("{\"k\": [1, {\"n\": 2}], \"s\": \"x,y\"}"),
        g.node("b").kwarg("backend_config"));
  }

  @Test
  void replicaGroupsInBothFormsAndOutOfRangeIds() throws IOException {
    Path f =
        write(
            "%x = f32[4]{0} parameter(0)",
            "%a = f32[4]{0} all-reduce(%x), channel_id=1, replica_groups=[2,2]<=[4],"
                + " use_global_device_ids=true, to_apply=%add",
            "ROOT %b = f32[4]{0} all-reduce(%a), channel_id=2, replica_groups={{0,1},{2,3}},"
                + " use_global_device_ids=true, to_apply=%add");
    DistributedGraph gd = HloImporter.importRanks(List.of(f), 4);
    assertNotNull(gd.rank(3).node("a"));
    assertEquals(List.of(2, 3), gd.members("2,3"));
    String big =
        fails(
            "%x = f32[4]{0} parameter(0)",
            "ROOT %a = f32[4]{0} all-reduce(%x), replica_groups={{0,4294967296}}, to_apply=%add");
    assertTrue(big.contains("the attribute `replica_groups` of `a` is not a list of ids"), big);
    String iota =
        fails(
            "%x = f32[4]{0} parameter(0)",
            "ROOT %a = f32[4]{0} all-reduce(%x), replica_groups=[1,2]<=[2]T(1), to_apply=%add");
    assertTrue(iota.contains("whose T(...) permutes its 1 dims"), iota);
  }

  @Test
  void theHeadersDeviceCountsMustFitTheRanks() throws IOException {
    String body = "\n\nENTRY %main () -> f32[] {\n  ROOT %x = f32[] parameter(0)\n}\n";
    Path four =
        Files.writeString(
            dir.resolve("four.hlo"),
            "HloModule m, is_scheduled=true, entry_computation_layout={(f32[])->f32[]},"
                + " num_partitions=4"
                + body);
    assertEquals(4, HloImporter.importRanks(List.of(four), 4).worldSize());
    String m =
        assertThrows(InputException.class, () -> HloImporter.importRanks(List.of(four), 2))
            .getMessage();
    assertTrue(m.startsWith(four + ":1: the module runs on 4 devices but is imported as 2"), m);
    assertTrue(m.contains("--ranks 4"), m);
    Path both =
        Files.writeString(
            dir.resolve("both.hlo"), "HloModule m, replica_count=2, num_partitions=2" + body);
    String b =
        assertThrows(InputException.class, () -> HloImporter.importRanks(List.of(both), 4))
            .getMessage();
    assertTrue(b.contains("runs on 2 replicas of 2 partitions each"), b);
  }

  @Test
  void operandCountsAndSizesAreCheckedAtTheirLine() throws IOException {
    String dus = fails("%x = f32[4,8] parameter(0)", "ROOT %d = f32[4,8] dynamic-update-slice(%x)");
    assertTrue(dus.contains(":11: `d` (dynamic-update-slice) has 1 operand, not at least 2"), dus);
    String add = fails("%x = f32[4,8] parameter(0)", "ROOT %d = f32[4,8] add(%x)");
    assertTrue(add.contains(":11: `d` (add) has 1 operand, not 2"), add);
    String reduce =
        fails(
            "%x = f32[4,8] parameter(0)",
            "ROOT %r = f32[] reduce(%x, %x, %x), dimensions={0,1}, to_apply=%add");
    assertTrue(reduce.contains("`r` reduces 3 operands, not pairs"), reduce);
    String slice =
        fails(
            "%x = f32[4,8] parameter(0)",
            "%p = u32[] partition-id()",
            "%z = u32[] constant(0)",
            "ROOT %d = f32[9,8] dynamic-slice(%x, %p, %z), dynamic_slice_sizes={9,8}");
    assertTrue(slice.contains(":13: `d` takes 9 along dim 0 of 4"), slice);
    String update =
        fails(
            "%x = f32[4,8] parameter(0)",
            "%u = f32[9,9] parameter(1)",
            "%p = u32[] partition-id()",
            "ROOT %d = f32[4,8] dynamic-update-slice(%x, %u, %p, %p)");
    assertTrue(update.contains(":13: `d` writes 9 along dim 0 of 4"), update);
    String big =
        fails(
            "%x = f32[4,8] parameter(0)",
            "ROOT %s = f32[4,8] transpose(%x), dimensions={99999999999999999999,0}");
    assertTrue(big.contains("the number 99999999999999999999 in an attribute of `s`"), big);
  }

  @Test
  void theImportCommandReportsADamagedModuleInOneLocatedParagraph() throws IOException {
    Path f =
        Files.writeString(
            dir.resolve("bad.hlo"),
            "HloModule m\n\nENTRY %e () -> f32[] {\n  %a = f32[99999999999999999999] parameter(0)\n}\n");
    dev.entangle.cli.CliRun run =
        dev.entangle.cli.CliRun.run("import", f, "-o", dir.resolve("out.json"));
    assertEquals(2, run.exitCode(), run::transcript);
    String err = run.err().strip();
    assertTrue(err.contains(f + ":4:12: the dimension size 99999999999999999999 is larger"), err);
    assertFalse(err.contains("\tat "), "no stack trace: " + err);
    assertFalse(err.contains("Exception"), "no exception name: " + err);
  }

  @Test
  void aConditionalWhoseBranchEachRankKnowsIsThatBranch() throws IOException {
    Path f =
        Files.writeString(
            dir.resolve("m.hlo"),
            "HloModule m\n\n%neg (a: f32[4]) -> f32[4] {\n  %a = f32[4]{0} parameter(0)\n"
                + "  ROOT %n = f32[4]{0} negate(%a)\n}\n\n"
                + "%exp (b: f32[4]) -> f32[4] {\n  %b = f32[4]{0} parameter(0)\n"
                + "  ROOT %e = f32[4]{0} exponential(%b)\n}\n\n"
                + "ENTRY %main () -> f32[4] {\n  %x = f32[4]{0} parameter(0)\n"
                + "  %i = u32[] partition-id()\n"
                + "  %c = f32[4]{0} conditional(%i, %x, %x), branch_computations={%neg, %exp}\n"
                + "  %t = pred[] constant(false)\n"
                + "  ROOT %d = f32[4]{0} conditional(%t, %c, %c), true_computation=%neg,"
                + " false_computation=%exp\n}\n");
    DistributedGraph gd = HloImporter.importRanks(List.of(f), 3);
    assertEquals("xla.negate", gd.rank(0).node("c").target());
    assertEquals("xla.exponential", gd.rank(1).node("c").target());
    assertEquals(
        "xla.exponential", gd.rank(2).node("c").target(), "an index out of range: the last");
    for (int r = 0; r < 3; r++) {
      assertEquals("xla.exponential", gd.rank(r).node("d").target(), "false: the second");
      assertEquals(List.of(new Arg.NodeRef("c")), gd.rank(r).node("d").args());
    }
  }

  private static List<Long> boxed(long[] v) {
    List<Long> out = new ArrayList<>();
    for (long x : v) {
      out.add(x);
    }
    return out;
  }
}
