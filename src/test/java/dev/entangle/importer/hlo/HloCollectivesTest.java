package dev.entangle.importer.hlo;

import static dev.entangle.importer.hlo.HloChecks.relation;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HLO's collectives end to end, each in a small program that refines only when the collective means
 * what XLA defines (dims other than 0, reducers, replica groups, source-target pairs, offsets from
 * the partition id), and a variant that must not.
 */
class HloCollectivesTest {
  @TempDir Path tmp;

  private static final String ADD =
      "%add (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
          + "  %b = f32[] parameter(1)\n  ROOT %s = f32[] add(%a, %b)\n}\n\n";
  private static final String MAX =
      "%max (a: f32[], b: f32[]) -> f32[] {\n  %a = f32[] parameter(0)\n"
          + "  %b = f32[] parameter(1)\n  ROOT %s = f32[] maximum(%a, %b)\n}\n\n";

  private static String module(String... lines) {
    return "HloModule m\n\n"
        + ADD
        + MAX
        + "ENTRY %main () -> f32[] {\n  "
        + String.join("\n  ", lines)
        + "\n}\n";
  }

  private JsonNode check(String name, String gs, String gd, int ranks, String relation)
      throws IOException {
    return HloChecks.check(tmp.resolve(name), gs, gd, ranks, relation);
  }

  private static void assertVerdict(String verdict, JsonNode report) {
    assertEquals(verdict, report.path("verdict").asText(), report::toPrettyString);
  }

  private static String outputRelation(JsonNode report, String gs) {
    for (JsonNode r : report.path("output_relation")) {
      if (r.path("gs").asText().equals(gs)) {
        return r.path("gd").asText();
      }
    }
    return null;
  }

  private static final String PRODUCT =
      module(
          "%x = f32[4,8]{1,0} parameter(0)",
          "%w = f32[8,6]{1,0} parameter(1)",
          "ROOT %y = f32[4,6]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}");

  @Test
  void allGatherAlongTheColumns() throws IOException {
    String gd =
        module(
            "%x = f32[4,8]{1,0} parameter(0)",
            "%w = f32[8,3]{1,0} parameter(1)",
            "%p = f32[4,3]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
            "ROOT %y = f32[4,6]{1,0} all-gather(%p), channel_id=1, replica_groups={{0,1}}, dimensions={1},"
                + " use_global_device_ids=true");
    String rel = relation("{\"gs\": \"x\", \"replicate\": true}", "{\"gs\": \"w\", \"shard\": 1}");
    JsonNode ok = check("ag", PRODUCT, gd, 2, rel);
    assertVerdict("refines", ok);
    assertTrue(outputRelation(ok, "y").matches("r[01]\\.y"), ok::toPrettyString);
    String async =
        module(
            "%x = f32[4,8]{1,0} parameter(0)",
            "%w = f32[8,3]{1,0} parameter(1)",
            "%p = f32[4,3]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
            "%s = (f32[4,3]{1,0}, f32[4,6]{1,0}) all-gather-start(%p), replica_groups={{0,1}}, dimensions={1}",
            "ROOT %y = f32[4,6]{1,0} all-gather-done(%s)");
    assertVerdict("refines", check("ag-async", PRODUCT, async, 2, rel));
    String rows =
        module(
            "%x = f32[4,8]{1,0} parameter(0)",
            "%w = f32[8,3]{1,0} parameter(1)",
            "%p = f32[4,3]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
            "%g = f32[8,3]{1,0} all-gather(%p), replica_groups={{0,1}}, dimensions={0}",
            "ROOT %y = f32[4,6]{1,0} reshape(%g)");
    assertVerdict("not-refined", check("ag-rows", PRODUCT, rows, 2, rel));
  }

  @Test
  void reduceScatterAlongTheColumnsWithItsReducer() throws IOException {
    String rel = relation("{\"gs\": \"x\", \"shard\": 1}", "{\"gs\": \"w\", \"shard\": 0}");
    String sum =
        module(
            "%x = f32[4,4]{1,0} parameter(0)",
            "%w = f32[4,6]{1,0} parameter(1)",
            "%p = f32[4,6]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
            "ROOT %y = f32[4,3]{1,0} reduce-scatter(%p), replica_groups={}, dimensions={1}, to_apply=%add");
    JsonNode ok = check("rs", PRODUCT, sum, 2, rel);
    assertVerdict("refines", ok);
    assertEquals("concat(r0.y, r1.y, dim=1)", outputRelation(ok, "y"));
    assertVerdict(
        "not-refined",
        check("rs-max", PRODUCT, sum.replace("to_apply=%add", "to_apply=%max"), 2, rel));
  }

  private static final String NEGATE =
      module("%x = f32[4,6]{1,0} parameter(0)", "ROOT %y = f32[4,6]{1,0} negate(%x)");

  @Test
  void allToAllTurnsRowShardsIntoColumnShards() throws IOException {
    String gd =
        module(
            "%x = f32[2,6]{1,0} parameter(0)",
            "%t = f32[2,2,3]{2,1,0} reshape(%x)",
            "%a = f32[2,2,3]{2,1,0} all-to-all(%t), replica_groups={{0,1}}, dimensions={1}",
            "%u = f32[2,2,3]{2,1,0} transpose(%a), dimensions={1,0,2}",
            "%v = f32[4,3]{1,0} reshape(%u)",
            "ROOT %y = f32[4,3]{1,0} negate(%v)");
    String rel = relation("{\"gs\": \"x\", \"shard\": 0}");
    JsonNode ok = check("a2a", NEGATE, gd, 2, rel);
    assertVerdict("refines", ok);
    assertEquals("concat(r0.y, r1.y, dim=1)", outputRelation(ok, "y"));
    String untransposed =
        gd.replace("%v = f32[4,3]{1,0} reshape(%u)", "%v = f32[4,3]{1,0} reshape(%a)");
    assertVerdict("not-refined", check("a2a-bad", NEGATE, untransposed, 2, rel));
  }

  @Test
  void collectivePermuteAroundARing() throws IOException {
    String gs = module("%x = f32[6,2]{1,0} parameter(0)", "ROOT %y = f32[6,2]{1,0} negate(%x)");
    String ring =
        module(
            "%x = f32[2,2]{1,0} parameter(0)",
            "%p = f32[2,2]{1,0} collective-permute(%x), channel_id=1, source_target_pairs={{0,1},{1,2},{2,0}}",
            "ROOT %y = f32[2,2]{1,0} negate(%p)");
    String rel = relation("{\"gs\": \"x\", \"shard\": 0}");
    JsonNode ok = check("cp", gs, ring, 3, rel);
    assertVerdict("refines", ok);
    assertEquals("concat(r1.y, r2.y, r0.y, dim=0)", outputRelation(ok, "y"));
    String async =
        module(
            "%x = f32[2,2]{1,0} parameter(0)",
            "%s = (f32[2,2]{1,0}, f32[2,2]{1,0}, u32[], u32[]) collective-permute-start(%x), channel_id=1,"
                + " source_target_pairs={{0,1},{1,2},{2,0}}",
            "%p = f32[2,2]{1,0} collective-permute-done(%s)",
            "ROOT %y = f32[2,2]{1,0} negate(%p)");
    assertVerdict("refines", check("cp-async", gs, async, 3, rel));
    String broken = ring.replace("{{0,1},{1,2},{2,0}}", "{{0,1},{1,2}}");
    assertVerdict("not-refined", check("cp-broken", gs, broken, 3, rel));
  }

  @Test
  void eachRankSlicesItsOwnRowsByItsPartitionId() throws IOException {
    String gs = module("%x = f32[4,2]{1,0} parameter(0)", "ROOT %y = f32[4,2]{1,0} negate(%x)");
    String gd =
        module(
            "%x = f32[4,2]{1,0} parameter(0)",
            "%pid = u32[] partition-id()",
            "%two = u32[] constant(2)",
            "%off = u32[] multiply(%pid, %two)",
            "%o = s32[] convert(%off)",
            "%zero = s32[] constant(0)",
            "%s = f32[2,2]{1,0} dynamic-slice(%x, %o, %zero), dynamic_slice_sizes={2,2}",
            "ROOT %y = f32[2,2]{1,0} negate(%s)");
    String rel = relation("{\"gs\": \"x\", \"replicate\": true}");
    JsonNode ok = check("pid", gs, gd, 2, rel);
    assertVerdict("refines", ok);
    assertEquals("concat(r0.y, r1.y, dim=0)", outputRelation(ok, "y"));
    String same =
        gd.replace("%off = u32[] multiply(%pid, %two)", "%off = u32[] multiply(%two, %two)");
    assertVerdict("not-refined", check("pid-same", gs, same, 2, rel));
  }

  @Test
  void replicaGroupsSplitTheRanks() throws IOException {
    String gs =
        module(
            "%x = f32[4,8]{1,0} parameter(0)",
            "%w = f32[8,6]{1,0} parameter(1)",
            "ROOT %y = f32[4,6]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}");
    String gd =
        module(
            "%x = f32[4,4]{1,0} parameter(0)",
            "%w = f32[4,6]{1,0} parameter(1)",
            "%p = f32[4,6]{1,0} dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}",
            "ROOT %y = f32[4,6]{1,0} all-reduce(%p), replica_groups={{0,1},{2,3}}, to_apply=%add");
    String rel =
        relation(
            "{\"gs\": \"x\", \"gd\": \"concat(r0.x, r1.x, dim=1)\"}",
            "{\"gs\": \"x\", \"gd\": \"concat(r2.x, r3.x, dim=1)\"}",
            "{\"gs\": \"w\", \"gd\": \"concat(r0.w, r1.w, dim=0)\"}",
            "{\"gs\": \"w\", \"gd\": \"concat(r2.w, r3.w, dim=0)\"}");
    JsonNode ok = check("groups", gs, gd, 4, rel);
    assertVerdict("refines", ok);
    assertTrue(outputRelation(ok, "y").matches("r[0-3]\\.y"), ok::toPrettyString);
    assertVerdict(
        "not-refined",
        check("groups-crossed", gs, gd.replace("{{0,1},{2,3}}", "{{0,2},{1,3}}"), 4, rel));
  }
}
