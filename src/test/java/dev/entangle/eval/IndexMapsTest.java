package dev.entangle.eval;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.entangle.core.numeric.Tensor;
import dev.entangle.core.semantics.Layout;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A slice's index map is where the slice kernel reads each of its elements from. */
class IndexMapsTest {
  @Test
  void aSlicesPositionsAreWhereTheSliceKernelReads() {
    Random rnd = new Random(7);
    for (int trial = 0; trial < 500; trial++) {
      int rank = 1 + rnd.nextInt(4);
      long[] shape = new long[rank];
      for (int i = 0; i < rank; i++) {
        shape[i] = 1 + rnd.nextInt(5);
      }
      int dim = rnd.nextInt(rank);
      long start = rnd.nextInt((int) shape[dim] + 1);
      long end = start + rnd.nextInt((int) (shape[dim] - start) + 1);
      long step = 1 + rnd.nextInt(3);
      double[] positions = new double[Tensor.checkedNumel(shape)];
      Arrays.setAll(positions, i -> i);
      double[] read =
          Layout.slice(new Tensor(shape, 0, positions), new long[] {dim, start, end, step});
      int[] map = IndexMaps.slice(shape, dim, start, end, step);
      String what = Arrays.toString(shape) + " dim " + dim + " " + start + ":" + end + ":" + step;
      assertEquals(read.length, map.length, what);
      assertArrayEquals(Arrays.stream(read).mapToInt(x -> (int) x).toArray(), map, what);
    }
  }
}
