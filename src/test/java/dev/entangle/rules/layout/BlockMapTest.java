package dev.entangle.rules.layout;

import static dev.entangle.rules.layout.LayoutTerm.concat;
import static dev.entangle.rules.layout.LayoutTerm.leaf;
import static dev.entangle.rules.layout.LayoutTerm.permute;
import static dev.entangle.rules.layout.LayoutTerm.reshape;
import static dev.entangle.rules.layout.LayoutTerm.shards;
import static dev.entangle.rules.layout.LayoutTerm.slice;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.numeric.Tensor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The block map type: its operators agree with the interpreter, and its forms are canonical. */
class BlockMapTest {
  private static BlockMap map(LayoutTerm t) {
    return LayoutTerm.map(t, new ArrayList<>());
  }

  @Test
  void theIdentityIsOneBoxWithRowMajorStrides() {
    BlockMap m = BlockMap.identity(7, new long[] {2, 1, 3});
    assertEquals(1, m.cells().size());
    Cell c = m.cells().get(0);
    assertEquals(7, c.source());
    assertEquals(3, c.stride(0));
    assertEquals(0, c.stride(1), "a dim of size 1 has stride 0");
    assertEquals(1, c.stride(2));
  }

  @Test
  void aTensorIsTheConcatOfItsRowSlicesInOrder() {
    LayoutTerm x = leaf("x", 6, 4);
    assertEquals(map(x), map(concat(List.of(slice(x, 0, 0, 2), slice(x, 0, 2, 6)), 0)));
    assertEquals(map(x), map(concat(shards(x, 1, 4), 1)));
    assertNotEquals(map(x), map(concat(List.of(slice(x, 0, 2, 6), slice(x, 0, 0, 2)), 0)));
  }

  @Test
  void boxesThatDoNotContinueKeepTheirCut() {
    LayoutTerm x = leaf("x", 4, 3);
    BlockMap m = map(concat(List.of(slice(x, 0, 2, 4), slice(x, 0, 0, 2)), 0));
    assertArrayEquals(new long[] {0, 2, 4}, m.bounds(0));
    assertEquals(2, m.cells().size());
  }

  @Test
  void interleavedShardsStackedBackAreTheTensor() {
    LayoutTerm x = leaf("x", 8, 3);
    List<LayoutTerm> parts = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      parts.add(reshape(slice(x, 0, r, 8, 4), 2, 1, 3));
    }
    assertEquals(map(x), map(reshape(concat(parts, 1), 8, 3)));
  }

  @Test
  void permutesComposeAndReshapesRoundTrip() {
    LayoutTerm x = leaf("x", 2, 3, 4);
    assertEquals(map(x), map(permute(permute(x, 2, 0, 1), 1, 2, 0)));
    assertEquals(map(x), map(reshape(reshape(x, 6, 4), 2, 3, 4)));
    assertEquals(map(reshape(x, 24)), map(reshape(reshape(x, 2, 12), 24)));
    assertNotEquals(map(x), map(reshape(permute(reshape(x, 6, 4), 1, 0), 2, 3, 4)));
  }

  @Test
  void aReshapeCutsBoxesIntoRowsWhereItMust() {
    LayoutTerm x = leaf("x", 4, 6);
    LayoutTerm t = concat(List.of(slice(x, 1, 3, 6), slice(x, 1, 0, 3)), 1);
    BlockMap m = map(reshape(t, 6, 4));
    assertArrayEquals(new long[] {6, 4}, m.shape());
    assertArrayEquals(new long[] {0, 1, 2, 3, 4}, m.bounds(1), "cut where a box of t ends");
    assertEquals(1, map(reshape(x, 6, 4)).cells().size(), "an uncut tensor reshapes to anything");
    BlockMap rolled = map(reshape(concat(List.of(slice(x, 0, 1, 4), slice(x, 0, 0, 1)), 0), 2, 12));
    assertArrayEquals(new long[] {0, 2}, rolled.bounds(0), "rows 1, 3 and 2, 0 step evenly");
    assertArrayEquals(new long[] {0, 6, 12}, rolled.bounds(1));
  }

  @Test
  void tooManyBoxesHaveNoForm() {
    LayoutTerm x = leaf("x", 10000);
    assertNull(map(reshape(permute(reshape(x, 2, 5000), 1, 0), 10000)), "5000 boxes of 2");
    LayoutTerm y = leaf("y", 8000);
    assertNotNull(map(reshape(permute(reshape(y, 2, 4000), 1, 0), 8000)), "4000 boxes of 2");
  }

  @Test
  void everyRandomCompositionReadsWhatTheInterpreterComputes() {
    List<LayoutTerm> leaves = List.of(leaf("a", 4, 6), leaf("b", 4, 6), leaf("c", 2, 3, 4));
    RandomLayouts random = new RandomLayouts(20, leaves);
    int checked = 0;
    for (int i = 0; i < 400; i++) {
      LayoutTerm t = random.term(1 + i % 6);
      List<String> names = new ArrayList<>();
      BlockMap m = LayoutTerm.map(t, names);
      if (m == null) {
        continue;
      }
      Map<String, Tensor> values = new HashMap<>();
      for (int k = 0; k < leaves.size(); k++) {
        LayoutTerm.Leaf l = (LayoutTerm.Leaf) leaves.get(k);
        values.put(l.name(), LayoutTerm.tagged(names.indexOf(l.name()), l.shape()));
      }
      Tensor v = LayoutTerm.eval(t, values);
      assertArrayEquals(t.shape(), m.shape(), t.render());
      long[] idx = new long[m.rank()];
      for (int k = 0; k < v.raw().length; k++) {
        long rest = k;
        for (int d = m.rank() - 1; d >= 0; d--) {
          idx[d] = rest % m.shape()[d];
          rest /= m.shape()[d];
        }
        long[] at = m.at(idx);
        assertEquals(v.raw()[k], 100_000.0 * (at[0] + 1) + at[1], t.render() + " at " + k);
      }
      checked++;
    }
    assertTrue(checked > 300, "only " + checked + " of 400 random compositions had a form");
  }
}
