package dev.entangle.importer.hlo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.entangle.util.InputException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The input relation of an HLO module's parameter shardings: modules that the pinned JAX dumped
 * before SPMD partitioning (src/test/resources/hlo-sharding, written by {@code
 * scripts/make-hlo-sharding-testdata}), and written ones for the forms JAX does not print.
 */
class HloShardingRelationTest {
  private static final Path DATA = Path.of("src/test/resources/hlo-sharding");

  @TempDir Path dir;

  /** The relation's entries, each as compact text such as {@code w shard 1}. */
  private static List<String> entries(Path file) {
    List<String> out = new ArrayList<>();
    for (JsonNode e : HloShardingRelation.of(file).get("relations")) {
      String gs = e.get("gs").asText();
      if (e.has("shard")) {
        out.add(gs + " shard " + e.get("shard").asInt());
      } else if (e.has("replicate")) {
        out.add(gs + " replicate");
      } else {
        out.add(gs + " = " + e.get("gd").asText());
      }
    }
    return out;
  }

  private Path module(int partitions, String... params) throws IOException {
    StringBuilder b = new StringBuilder("HloModule m, num_partitions=" + partitions + "\n\n");
    b.append("ENTRY %main {\n");
    for (int i = 0; i < params.length; i++) {
      b.append("  %p").append(i).append(" = ").append(params[i]).append('\n');
    }
    b.append("  ROOT %t = () tuple()\n}\n");
    return Files.writeString(dir.resolve("m.hlo"), b.toString());
  }

  private String fails(Path file, String... parts) {
    String m = assertThrows(InputException.class, () -> HloShardingRelation.of(file)).getMessage();
    assertTrue(m.startsWith(file.toString() + ":"), m);
    assertFalse(m.contains("\n"), m);
    for (String p : parts) {
      assertTrue(m.contains(p), "expected '" + p + "' in: " + m);
    }
    return m;
  }

  @Test
  void aColumnSplitWeightIsAShardAndAReplicatedInputReplicated() {
    assertEquals(List.of("x replicate", "w shard 1"), entries(DATA.resolve("column-split-2.hlo")));
  }

  @Test
  void aTwoByTwoMeshGivesNestedConcatenationsInDeviceOrder() {
    assertEquals(
        List.of(
            "a = concat(concat(r0.a, r1.a, dim=1), concat(r2.a, r3.a, dim=1), dim=0)",
            // axes swapped: devices=[2,2]<=[2,2]T(1,0) lists the devices 0, 2, 1, 3
            "b = concat(concat(r0.b, r2.b, dim=1), concat(r1.b, r3.b, dim=1), dim=0)",
            // sharded over the first mesh axis, each tile on two devices
            "c = concat(r0.c, r2.c, dim=0)",
            "c = concat(r1.c, r3.c, dim=0)",
            "d = concat(r0.d, r1.d, dim=1)",
            "d = concat(r2.d, r3.d, dim=1)",
            "e replicate"),
        entries(DATA.resolve("mesh-2x2.hlo")));
  }

  @Test
  void explicitDeviceListsInAnotherOrderAreWrittenOut() throws IOException {
    Path m =
        module(
            2,
            "f32[4,6] parameter(0), sharding={devices=[1,2]0,1}, metadata={op_name=\"w\"}",
            "f32[4,6] parameter(1), sharding={devices=[2,1]1,0}, metadata={op_name=\"v\"}",
            "f32[4,6] parameter(2), sharding={devices=[1,1,2]0,1 last_tile_dim_replicate},"
                + " metadata={op_name=\"u.weight\"}");
    assertEquals(
        List.of("w shard 1", "v = concat(r1.v, r0.v, dim=0)", "u.weight replicate"), entries(m));
  }

  @Test
  void aMaximalShardingIsRefused() throws IOException {
    Path m =
        module(2, "f32[4] parameter(0), sharding={maximal device=0}, metadata={op_name=\"w\"}");
    fails(m, "m.hlo:4: ", "the parameter `p0` (w) lives whole on device 0", "in_shardings");
  }

  @Test
  void parametersWithoutShardingOrNameAreRefused() throws IOException {
    fails(module(2, "f32[4] parameter(0), metadata={op_name=\"w\"}"), "`p0` (w) has no sharding");
    fails(module(2, "f32[4] parameter(0), sharding={replicated}"), "`p0` has no metadata op_name");
    fails(
        module(
            2,
            "f32[4] parameter(0), sharding={replicated}, metadata={op_name=\"w\"}",
            "f32[4] parameter(1), sharding={replicated}, metadata={op_name=\"w\"}"),
        "two parameters have the op_name `w`");
  }

  @Test
  void meshesThatDoNotFitThePartitionsOrTheShapeAreRefused() throws IOException {
    fails(
        module(4, "f32[4] parameter(0), sharding={devices=[2]0,1}, metadata={op_name=\"w\"}"),
        "its device mesh has 2 devices, the module 4 partitions");
    fails(
        module(2, "f32[4] parameter(0), sharding={devices=[2]1,1}, metadata={op_name=\"w\"}"),
        "does not list each of the module's 2 partitions once");
    fails(
        module(2, "f32[5] parameter(0), sharding={devices=[2]0,1}, metadata={op_name=\"w\"}"),
        "dim 0 of size 5 does not divide into 2 tiles");
    fails(
        module(2, "f32[4,2] parameter(0), sharding={devices=[2]0,1}, metadata={op_name=\"w\"}"),
        "has 2 dims but its device mesh 1");
    fails(
        module(1, "f32[4] parameter(0), sharding={replicated}, metadata={op_name=\"w\"}"),
        "num_partitions of at least 2");
  }
}
