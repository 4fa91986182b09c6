package dev.entangle.core.semantics;

import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.apply;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.attrs;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.shape;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.BudgetExhausted;
import dev.entangle.eval.Kernels;
import dev.entangle.eval.WorkBudget;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Matrix products: by hand, batched, across block boundaries, and charged to the budget. */
class MatmulTest {
  @Test
  void aProductByHand() {
    assertTensor(
        apply(
            Op.MATMUL,
            attrs(),
            f32(shape(2, 3), 1, 2, 3, 4, 5, 6),
            f32(shape(3, 2), 7, 8, 9, 10, 11, 12)),
        F32,
        shape(2, 2),
        58,
        64,
        139,
        154);
  }

  @Test
  void batchedOperandsAndASharedRightOperand() {
    assertTensor(
        apply(Op.MATMUL, attrs(), f32(shape(2, 1, 2), 1, 2, 3, 4), f32(shape(2, 2, 1), 5, 6, 7, 8)),
        F32,
        shape(2, 1, 1),
        17,
        53);
    assertTensor(
        apply(Op.MATMUL, attrs(), f32(shape(2, 1, 2), 1, 2, 3, 4), f32(shape(2, 2), 1, 2, 3, 4)),
        F32,
        shape(2, 1, 2),
        7,
        10,
        15,
        22);
  }

  @Test
  void anEmptyInnerDimGivesZeros() {
    assertTensor(
        apply(Op.MATMUL, attrs(), f32(shape(2, 0)), f32(shape(0, 2))),
        F32,
        shape(2, 2),
        0,
        0,
        0,
        0);
  }

  @Test
  void mismatchedInnerSizesAreRefused() {
    EvalException e =
        assertThrows(
            EvalException.class,
            () -> apply(Op.MATMUL, attrs(), f32(shape(1, 2), 1, 2), f32(shape(3, 1), 1, 2, 3)));
    assertEquals("matmul: matmul of [1, 2] and [3, 1]: inner sizes differ", e.getMessage());
  }

  /**
   * Sizes past every block edge: each element sums its products in increasing k, exactly as a plain
   * loop does.
   */
  @Test
  void blockingDoesNotChangeAnySum() {
    int m = 70;
    int k = 300;
    int n = 1100;
    SplittableRandom rng = new SplittableRandom(7);
    double[] a = new double[m * k];
    double[] b = new double[k * n];
    for (int i = 0; i < a.length; i++) {
      a[i] = rng.nextDouble(-1, 1);
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = rng.nextDouble(-1, 1);
    }
    double[] want = new double[m * n];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        double s = 0;
        for (int p = 0; p < k; p++) {
          s += a[i * k + p] * b[p * n + j];
        }
        want[i * n + j] = s;
      }
    }
    Tensor got = apply(Op.MATMUL, attrs(), f32(shape(m, k), a), f32(shape(k, n), b));
    assertArrayEquals(want, got.values(), 0.0);
  }

  @Test
  void aProductPastTheBudgetIsNotComputed() {
    WorkBudget budget = new WorkBudget(1000, Long.MAX_VALUE);
    Kernels kernels = new Kernels(new OpTable(), budget);
    Tensor x = f32(shape(10, 10), new double[100]);
    BudgetExhausted e =
        assertThrows(BudgetExhausted.class, () -> kernels.apply(Op.MATMUL.id(), attrs(), x, x));
    assertTrue(
        e.getMessage()
            .contains("matmul of [10, 10] and [10, 10] needs 1300 units of work, but only 1000"),
        e.getMessage());
    assertThrows(BudgetExhausted.class, () -> kernels.apply(Op.NEG.id(), attrs(), x));
  }
}
