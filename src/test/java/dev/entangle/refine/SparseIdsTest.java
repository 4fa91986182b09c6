package dev.entangle.refine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SparseIdsTest {
  @Test
  void membersAreAddedOnceAndListedAscending() {
    SparseIds ids = new SparseIds();
    assertTrue(ids.add(500_000));
    assertTrue(ids.add(3));
    assertFalse(ids.add(500_000), "a member already");
    assertTrue(ids.has(3));
    assertTrue(ids.has(500_000));
    assertFalse(ids.has(4));
    assertEquals(2, ids.size());
    assertArrayEquals(new int[] {3, 500_000}, ids.ascending());
  }

  @Test
  void itAgreesWithASortedSetThroughItsGrowth() {
    Random r = new Random(7);
    SparseIds ids = new SparseIds();
    TreeSet<Integer> expected = new TreeSet<>();
    for (int i = 0; i < 5_000; i++) {
      int id = r.nextInt(20_000);
      assertEquals(expected.add(id), ids.add(id), "add " + id);
      int probe = r.nextInt(20_000);
      assertEquals(expected.contains(probe), ids.has(probe), "has " + probe);
    }
    assertEquals(expected.size(), ids.size());
    assertArrayEquals(expected.stream().mapToInt(Integer::intValue).toArray(), ids.ascending());
  }

  @Test
  void valuesFollowTheirIdsThroughGrowth() {
    Random r = new Random(11);
    SparseIds ids = new SparseIds();
    HashMap<Integer, Integer> expected = new HashMap<>();
    for (int i = 0; i < 5_000; i++) {
      int id = r.nextInt(20_000);
      int value = r.nextInt(9);
      Integer before = expected.put(id, value);
      assertEquals(before == null ? -1 : before, ids.put(id, value), "put " + id);
      int probe = r.nextInt(20_000);
      assertEquals(expected.getOrDefault(probe, -1), ids.value(probe), "value " + probe);
    }
    assertEquals(expected.size(), ids.size());
    assertTrue(ids.add(20_001), "a new member");
    assertEquals(0, ids.value(20_001), "add gives the value 0");
  }

  @Test
  void aNegativeIdOrValueIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new SparseIds().put(3, -1));
  }

  @Test
  void aNegativeIdIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> new SparseIds().add(-1));
  }
}
