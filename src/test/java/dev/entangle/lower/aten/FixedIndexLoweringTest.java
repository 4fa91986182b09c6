package dev.entangle.lower.aten;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.OpTable;
import dev.entangle.graph.FxJson;
import dev.entangle.graph.GraphJson;
import dev.entangle.lower.DumpedLines;
import dev.entangle.lower.Lowering;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Indices a program fixes, read as the layout they pick ({@link FixedIndexLowering}): DTensor's
 * reorder of a gathered strided shard (positions built from aranges, splits and concats, sorted,
 * the rows selected in that order and viewed with {@code as_strided}) becomes slices of the
 * gathered rows; what is not fixed or not defined keeps its general lowering or stays opaque.
 */
class FixedIndexLoweringTest {
  @TempDir Path dir;

  private static String node(String name, String target, String args, String shape, String dt) {
    return FxJson.call(name, target, args, "{}", shape, dt);
  }

  private static String tuple(
      String name, String target, String args, String kwargs, String shape, String dt, int count) {
    return FxJson.tuple(name, target, args, kwargs, shape, dt, count);
  }

  private static String sortItems(String sort, String shape) {
    return FxJson.item(sort + "_values", sort, 0, shape, "int64")
        + ",\n"
        + FxJson.item(sort + "_indices", sort, 1, shape, "int64");
  }

  /** Lowers a graph of these nodes (the last one its output); returns each value's dumped line. */
  private Map<String, String> lower(List<String> nodes) throws IOException {
    String last = nodes.get(nodes.size() - 1);
    String out = last.substring(last.indexOf("\"name\": \"") + 9);
    out = out.substring(0, out.indexOf('"'));
    Path f = Files.writeString(dir.resolve("g.json"), FxJson.graph(nodes, out));
    return DumpedLines.of(Lowering.sequential(GraphJson.readGraph(f), new OpTable()));
  }

  /** Positions 0..7 in two ranks' halves of two rows each: [0, 1, 4, 5, 2, 3, 6, 7]. */
  private static List<String> places() {
    return List.of(
        node("ar", "aten.arange.start_step", "[0, 8]", "[8]", "int64"),
        tuple(
            "split",
            "aten.split_with_sizes.default",
            "[{\"node\": \"ar\"}, [2, 2, 2, 2]]",
            "{}",
            "[2]",
            "int64",
            4),
        node("p0", "getitem", "[{\"node\": \"split\"}, 0]", "[2]", "int64"),
        node("p1", "getitem", "[{\"node\": \"split\"}, 1]", "[2]", "int64"),
        node("p2", "getitem", "[{\"node\": \"split\"}, 2]", "[2]", "int64"),
        node("p3", "getitem", "[{\"node\": \"split\"}, 3]", "[2]", "int64"),
        node(
            "places",
            "aten.cat.default",
            "[[{\"node\": \"p0\"}, {\"node\": \"p2\"}, {\"node\": \"p1\"}, {\"node\": \"p3\"}]]",
            "[8]",
            "int64"));
  }

  @Test
  void aSortOfFixedPlacesAndTheRowsItSelectsAreSlices() throws IOException {
    List<String> nodes = new java.util.ArrayList<>(places());
    nodes.add(FxJson.input("rows", "[8, 3]", "float32"));
    nodes.add(
        tuple("sort", "aten.sort.default", "[{\"node\": \"places\"}]", "{}", "[8]", "int64", 2));
    nodes.add(sortItems("sort", "[8]"));
    nodes.add(
        node(
            "picked",
            "aten.index_select.default",
            "[{\"node\": \"rows\"}, 0, {\"node\": \"sort_indices\"}]",
            "[8, 3]",
            "float32"));
    nodes.add(
        node(
            "viewed",
            "aten.as_strided.default",
            "[{\"node\": \"picked\"}, [8, 3], [3, 1]]",
            "[8, 3]",
            "float32"));
    Map<String, String> t = lower(nodes);
    assertEquals(
        "int64[8] = concat[0](arange[0, 2, 1, 4], arange[4, 6, 1, 4], arange[2, 4, 1, 4],"
            + " arange[6, 8, 1, 4])   # aten.sort.default, constant",
        t.get("sort_indices"));
    assertTrue(t.get("sort_values").startsWith("int64[8] = concat[0](slice[0, 0, 2, 1](places),"));
    assertEquals(
        "float32[8, 3] = concat[0](slice[0, 0, 2, 1](rows), slice[0, 4, 6, 1](rows), slice[0, 2,"
            + " 4, 1](rows), slice[0, 6, 8, 1](rows))   # aten.index_select.default",
        t.get("picked"));
    assertEquals(
        "float32[8, 3] = reshape[8, 3](reshape[24](picked))   # aten.as_strided.default",
        t.get("viewed"));
  }

  @Test
  void evenlySpacedIndicesAreOneSliceWithAStep() throws IOException {
    Map<String, String> t =
        lower(
            List.of(
                FxJson.input("rows", "[8, 3]", "float32"),
                node("ids", "aten.arange.start_step", "[1, 8, 2]", "[4]", "int64"),
                node(
                    "picked",
                    "aten.index_select.default",
                    "[{\"node\": \"rows\"}, 0, {\"node\": \"ids\"}]",
                    "[4, 3]",
                    "float32")));
    assertEquals(
        "float32[4, 3] = slice[0, 1, 8, 2](rows)   # aten.index_select.default", t.get("picked"));
  }

  @Test
  void indexingByFixedIndicesCountsNegativeOnesFromTheEnd() throws IOException {
    Map<String, String> t =
        lower(
            List.of(
                FxJson.input("x", "[2, 8, 3]", "float32"),
                node("ids", "aten.arange.start_step", "[-7, 0, 2]", "[4]", "int64"),
                node(
                    "picked",
                    "aten.index.Tensor",
                    "[{\"node\": \"x\"}, [null, {\"node\": \"ids\"}]]",
                    "[2, 4, 3]",
                    "float32")));
    assertEquals("float32[2, 4, 3] = slice[1, 1, 8, 2](x)   # aten.index.Tensor", t.get("picked"));
  }

  @Test
  void aMatrixIndexedAlongItsRowsByFixedIndicesTakesThoseRows() throws IOException {
    Map<String, String> t =
        lower(
            List.of(
                FxJson.input("m", "[4, 2]", "float32"),
                node("ids", "aten.arange.start_step", "[-1, -5, -3]", "[2]", "int64"),
                node(
                    "picked",
                    "aten.index.Tensor",
                    "[{\"node\": \"m\"}, [{\"node\": \"ids\"}]]",
                    "[2, 2]",
                    "float32")));
    assertEquals(
        "float32[2, 2] = concat[0](slice[0, 3, 4, 1](m), slice[0, 0, 1, 1](m))   # aten.index.Tensor",
        t.get("picked"));
  }

  @Test
  void indicesTheProgramDoesNotFixAreALookup() throws IOException {
    Map<String, String> t =
        lower(
            List.of(
                FxJson.input("rows", "[8, 3]", "float32"),
                FxJson.input("ids", "[4]", "int64"),
                node(
                    "picked",
                    "aten.index_select.default",
                    "[{\"node\": \"rows\"}, 0, {\"node\": \"ids\"}]",
                    "[4, 3]",
                    "float32")));
    assertTrue(t.get("picked").contains("embedding("), t.get("picked"));
  }

  @Test
  void anUnstableSortOfEqualEntriesStaysOpaqueAndAStableOneIsRead() throws IOException {
    // [0, 1, 0, 1]: equal entries keep their order only in a stable sort
    List<String> ties =
        List.of(
            node("ar", "aten.arange.start_step", "[0, 2]", "[2]", "int64"),
            node(
                "half",
                "aten.cat.default",
                "[[{\"node\": \"ar\"}, {\"node\": \"ar\"}]]",
                "[4]",
                "int64"));
    List<String> unstable = new java.util.ArrayList<>(ties);
    unstable.add(
        tuple("sort", "aten.sort.default", "[{\"node\": \"half\"}]", "{}", "[4]", "int64", 2));
    unstable.add(sortItems("sort", "[4]"));
    assertTrue(lower(unstable).get("sort_indices").contains("aten.sort"), "opaque");
    List<String> stable = new java.util.ArrayList<>(ties);
    stable.add(
        tuple(
            "sort",
            "aten.sort.stable",
            "[{\"node\": \"half\"}]",
            "{\"stable\": true, \"descending\": true}",
            "[4]",
            "int64",
            2));
    stable.add(sortItems("sort", "[4]"));
    assertEquals(
        "int64[4] = concat[0](arange[1, 2, 1, 4], arange[3, 4, 1, 4], arange[0, 1, 1, 4],"
            + " arange[2, 3, 1, 4])   # aten.sort.stable, constant",
        lower(stable).get("sort_indices"));
  }

  @Test
  void asStridedOfAViewStaysOpaque() throws IOException {
    Map<String, String> t =
        lower(
            List.of(
                FxJson.input("x", "[3, 8]", "float32"),
                node(
                    "xt",
                    "aten.permute.default",
                    "[{\"node\": \"x\"}, [1, 0]]",
                    "[8, 3]",
                    "float32"),
                node(
                    "viewed",
                    "aten.as_strided.default",
                    "[{\"node\": \"xt\"}, [8, 3], [3, 1]]",
                    "[8, 3]",
                    "float32")));
    assertTrue(t.get("viewed").contains("aten.as_strided"), t.get("viewed"));
  }

  @Test
  void runsAreEvenlySpacedIncreasingEntries() {
    List<long[]> r = FixedIndexLowering.runs(new long[] {0, 1, 2, 9, 5, 7, 9, 3});
    assertEquals(4, r.size());
    assertEquals(List.of(0L, 3L, 1L), List.of(r.get(0)[0], r.get(0)[1], r.get(0)[2]));
    assertEquals(List.of(9L, 10L, 1L), List.of(r.get(1)[0], r.get(1)[1], r.get(1)[2]));
    assertEquals(List.of(5L, 10L, 2L), List.of(r.get(2)[0], r.get(2)[1], r.get(2)[2]));
    assertEquals(List.of(3L, 4L, 1L), List.of(r.get(3)[0], r.get(3)[1], r.get(3)[2]));
    long[] reversed = new long[FixedIndexLowering.MAX_RUNS + 1];
    for (int i = 0; i < reversed.length; i++) {
      reversed[i] = reversed.length - i;
    }
    assertNull(FixedIndexLowering.runs(reversed), "more runs than a selection becomes");
  }
}
