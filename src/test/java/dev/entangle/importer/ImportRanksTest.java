package dev.entangle.importer;

import static dev.entangle.importer.Snippets.module;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.graph.DistributedGraph;
import dev.entangle.util.InputException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImportRanksTest {
  @TempDir Path dir;

  private List<Path> ranks() {
    Path r0 =
        Snippets.write(
            dir,
            "gd.r0.py",
            module(
                "x: \"f32[4]\"",
                "all_reduce: \"f32[4]\" = torch.ops._c10d_functional.all_reduce.default(x, 'sum', '12')",
                "wait_tensor: \"f32[4]\" = torch.ops._c10d_functional.wait_tensor.default(all_reduce)",
                "return (wait_tensor,)"));
    Path r1 =
        Snippets.write(
            dir,
            "gd.r1.py",
            module(
                "x: \"f32[4]\"",
                "_tensor_constant0: \"f32[]\" = self._tensor_constant0",
                "all_reduce: \"f32[4]\" = torch.ops._c10d_functional.all_reduce.default(x, 'sum', '12')",
                "wait_tensor: \"f32[4]\" = torch.ops._c10d_functional.wait_tensor.default(all_reduce)",
                "return (wait_tensor,)"));
    return List.of(r0, r1);
  }

  @Test
  void rankKIsTheKthFile() {
    DistributedGraph d =
        GraphCodeImporter.importRanks(
            ranks(),
            new ImportOptions(
                Map.of("12", List.of(0, 1)), Map.of("_tensor_constant0", 0.0), List.of()));
    assertEquals(2, d.worldSize());
    assertEquals("gd.r0", d.rank(0).name());
    assertEquals("gd.r1", d.rank(1).name());
    assertEquals(Map.of("12", List.of(0, 1)), d.processGroups());
    assertEquals(0.0, d.rank(1).node("_tensor_constant0").meta().value());
    assertEquals(List.of(0, 1), d.members("other"));
  }

  @Test
  void groupsMustNameRanksThatHaveAFile() {
    InputException out =
        assertThrows(
            InputException.class,
            () ->
                GraphCodeImporter.importRanks(
                    ranks(),
                    new ImportOptions(
                        Map.of("tp:0", List.of(0, 2)),
                        Map.of("_tensor_constant0", 0.0),
                        List.of())));
    assertTrue(
        out.getMessage()
            .contains("process group `tp:0` lists rank 2, but there are 2 ranks (0 to 1)"),
        out.getMessage());
    InputException twice =
        assertThrows(
            InputException.class,
            () ->
                GraphCodeImporter.importRanks(
                    ranks(),
                    new ImportOptions(
                        Map.of("12", List.of(1, 1)), Map.of("_tensor_constant0", 0.0), List.of())));
    assertTrue(twice.getMessage().contains("lists rank 1 twice"), twice.getMessage());
    InputException empty =
        assertThrows(
            InputException.class,
            () ->
                GraphCodeImporter.importRanks(
                    ranks(),
                    new ImportOptions(
                        Map.of("12", List.of()), Map.of("_tensor_constant0", 0.0), List.of())));
    assertTrue(empty.getMessage().contains("lists no ranks"), empty.getMessage());
  }

  @Test
  void constantsAreCheckedAcrossAllRanks() {
    InputException missing =
        assertThrows(
            InputException.class,
            () -> GraphCodeImporter.importRanks(ranks(), ImportOptions.defaults()));
    assertTrue(missing.getMessage().contains("gd.r1.py:10: "), missing.getMessage());
    InputException unused =
        assertThrows(
            InputException.class,
            () ->
                GraphCodeImporter.importRanks(
                    ranks(),
                    new ImportOptions(
                        Map.of(),
                        Map.of("_tensor_constant0", 0.0, "_tensor_constant1", 0.0),
                        List.of())));
    assertTrue(
        unused.getMessage().contains("--constant gives a value for _tensor_constant1"),
        unused.getMessage());
  }

  @Test
  void noFilesIsAnInputError() {
    assertThrows(
        InputException.class,
        () -> GraphCodeImporter.importRanks(List.of(), ImportOptions.defaults()));
  }
}
