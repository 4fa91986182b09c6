package dev.entangle.core.semantics;

import static dev.entangle.eval.Tensors.BOOL;
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

/** Lookups and picks by integer tensors, against values worked out by hand. */
class IndexingTest {
  private static final Tensor TABLE = f32(shape(3, 2), 0, 1, 10, 11, 20, 21);
  private static final Tensor X = f32(shape(2, 3), 0, 1, 2, 3, 4, 5);

  @Test
  void embeddingLooksUpRows() {
    assertTensor(
        apply(Op.EMBEDDING, attrs(), TABLE, i64(shape(2, 2), 2, 0, 1, 1)),
        F32,
        shape(2, 2, 2),
        20,
        21,
        0,
        1,
        10,
        11,
        10,
        11);
  }

  @Test
  void anIdOutsideTheTableIsReportedWithItsPosition() {
    EvalException e =
        assertThrows(
            EvalException.class, () -> apply(Op.EMBEDDING, attrs(), TABLE, i64(shape(2), 0, 3)));
    assertEquals("embedding id 3 at position [1] is outside the table's 3 rows", e.getMessage());
  }

  @Test
  void embeddingRangeZeroesRowsOutsideItsShard() {
    Tensor shard = f32(shape(2, 2), 30, 31, 40, 41);
    assertTensor(
        apply(Op.EMBEDDING_RANGE, attrs(3, 5), shard, i64(shape(4), 3, 0, 4, 5)),
        F32,
        shape(4, 2),
        30,
        31,
        0,
        0,
        40,
        41,
        0,
        0);
  }

  @Test
  void index2PicksElementsAndCountsNegativeIndicesFromTheEnd() {
    assertTensor(
        apply(Op.INDEX2, attrs(), X, i64(shape(3), 0, 1, -1), i64(shape(3), 2, 0, -1)),
        F32,
        shape(3),
        2,
        3,
        5);
    EvalException e =
        assertThrows(
            EvalException.class,
            () -> apply(Op.INDEX2, attrs(), X, i64(shape(1), 2), i64(shape(1), 0)));
    assertEquals("index 2 at position [0] is outside the 2 rows it indexes", e.getMessage());
  }

  @Test
  void pickTakesOneElementOfTheLastDimPerPosition() {
    assertTensor(apply(Op.PICK, attrs(), X, i64(shape(2), 2, 0)), F32, shape(2), 2, 3);
    assertTensor(apply(Op.PICK, attrs(), X, i64(shape(2), 2, 1)), F32, shape(2), 2, 4);
  }

  @Test
  void aPickHasNoValueForANegativeIdAsTorchsGather() {
    EvalException e =
        assertThrows(EvalException.class, () -> apply(Op.PICK, attrs(), X, i64(shape(2), -1, 1)));
    assertEquals(
        "index -1 at position [0] is outside the 3 entries of the last dim it indexes",
        e.getMessage());
  }

  @Test
  void pickRangePicksInsideItsRangeAndGivesZeroOutside() {
    assertTensor(apply(Op.PICK_RANGE, attrs(3, 6), X, i64(shape(2), 4, 1)), F32, shape(2), 1, 0);
  }

  @Test
  void embeddingGradSumsTheGradientRowsOfEachId() {
    Tensor g = f32(shape(4, 2), 1, 1, 2, 2, 3, 3, 4, 4);
    Tensor ids = i64(shape(4), 2, 0, 2, 7);
    assertTensor(apply(Op.EMBEDDING_GRAD, attrs(0, 3), g, ids), F32, shape(3, 2), 2, 2, 0, 0, 4, 4);
    assertTensor(apply(Op.EMBEDDING_GRAD, attrs(1, 3), g, ids), F32, shape(2, 2), 0, 0, 4, 4);
  }

  @Test
  void outOfRangeMasksIdsOutsideTheRange() {
    assertTensor(
        apply(Op.OUT_OF_RANGE, attrs(1, 3), i64(shape(4), 0, 1, 2, 3)), BOOL, shape(4), 1, 0, 0, 1);
  }
}
