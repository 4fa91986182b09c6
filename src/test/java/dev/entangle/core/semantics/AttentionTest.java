package dev.entangle.core.semantics;

import static dev.entangle.eval.Tensors.F32;
import static dev.entangle.eval.Tensors.apply;
import static dev.entangle.eval.Tensors.assertTensor;
import static dev.entangle.eval.Tensors.attrs;
import static dev.entangle.eval.Tensors.f32;
import static dev.entangle.eval.Tensors.i64;
import static dev.entangle.eval.Tensors.shape;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.entangle.core.Op;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import org.junit.jupiter.api.Test;

/** Rotary embedding and attention, against values worked out by hand. */
class AttentionTest {
  /**
   * Row 0: no rotation; row 1: pair 0 turned by 90 degrees, pair 1 not: [cos0, cos1, sin0, sin1].
   */
  private static final Tensor CACHE = f32(shape(2, 4), 1, 1, 0, 0, 0, 1, 1, 0);

  @Test
  void ropeInTheNeoxLayoutPairsElementsHalfAHeadApart() {
    Tensor x = f32(shape(1, 4), 1, 2, 3, 4);
    assertTensor(
        apply(Op.ROPE, attrs(4, 1), x, i64(shape(1), 1), CACHE), F32, shape(1, 4), -3, 2, 1, 4);
    assertTensor(
        apply(Op.ROPE, attrs(4, 1), x, i64(shape(1), 0), CACHE), F32, shape(1, 4), 1, 2, 3, 4);
  }

  @Test
  void ropeInTheGptjLayoutPairsNeighbours() {
    assertTensor(
        apply(Op.ROPE, attrs(4, 0), f32(shape(1, 4), 1, 2, 3, 4), i64(shape(1), 1), CACHE),
        F32,
        shape(1, 4),
        -2,
        1,
        3,
        4);
  }

  @Test
  void ropeTurnsEveryHeadOfEachTokenByItsPosition() {
    Tensor x = f32(shape(2, 8), 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8);
    assertTensor(
        apply(Op.ROPE, attrs(4, 1), x, i64(shape(2), 0, 1), CACHE),
        F32,
        shape(2, 8),
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        -3,
        2,
        1,
        4,
        -7,
        6,
        5,
        8);
  }

  @Test
  void ropeKeepsTheElementsPastTheRotaryDim() {
    Tensor cache = f32(shape(1, 2), 0, 1);
    assertTensor(
        apply(Op.ROPE, attrs(4, 1), f32(shape(1, 4), 1, 2, 3, 4), i64(shape(1), 0), cache),
        F32,
        shape(1, 4),
        -2,
        1,
        3,
        4);
  }

  @Test
  void aPositionOutsideTheCacheIsReported() {
    EvalException e =
        assertThrows(
            EvalException.class,
            () ->
                apply(Op.ROPE, attrs(4, 1), f32(shape(1, 4), 1, 2, 3, 4), i64(shape(1), 2), CACHE));
    assertEquals("rope position 2.0 of token 0 is outside the cache's 2 rows", e.getMessage());
  }

  @Test
  void attentionIsCausalAndScaledByTheSquareRootOfTheHeadSize() {
    // token 0 sees only itself; token 1 scores [0, ln 3] after the 1/sqrt(4) scale: weights 1/4,
    // 3/4
    double s = 2 * Math.log(3);
    Tensor q = f32(shape(2, 1, 4), 5, 5, 5, 5, 1, 0, 0, 0);
    Tensor k = f32(shape(2, 1, 4), 0, 0, 0, 0, s, 0, 0, 0);
    Tensor v = f32(shape(2, 1, 4), 4, 4, 4, 4, 8, 8, 8, 8);
    assertTensor(
        apply(Op.ATTENTION, attrs(), q, k, v), F32, shape(2, 1, 4), 4, 4, 4, 4, 7, 7, 7, 7);
  }

  @Test
  void groupedQueryHeadsShareTheirKeyAndValueHead() {
    double s = Math.log(3) / 2;
    Tensor q = f32(shape(2, 2, 1), 1, 0, 2, 0);
    Tensor k = f32(shape(2, 1, 1), 0, s);
    Tensor v = f32(shape(2, 1, 1), 4, 8);
    // head 0 of token 1 scores [0, ln 3]; head 1 scores [0, 0]
    assertTensor(apply(Op.ATTENTION, attrs(), q, k, v), F32, shape(2, 2, 1), 4, 4, 7, 6);
  }
}
