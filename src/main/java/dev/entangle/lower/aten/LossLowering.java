package dev.entangle.lower.aten;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.lower.LoweringException;
import java.util.Arrays;

/**
 * The loss functions torch's autograd leaves in a traced training step ({@code mse_loss}, {@code
 * nll_loss_forward} of {@code F.cross_entropy}, and their backwards), lowered to core operators the
 * way torch's decomposition tables ({@code torch/_decomp/decompositions.py}) define them, so that
 * the proof and the interpreter see the same terms as for the loss written out by hand.
 *
 * <p>The reduction mode (0 none, 1 mean, 2 sum) and {@code ignore_index} are part of the terms. A
 * class {@code weight} is not lowered yet: such a call stays opaque. Targets are assumed to be
 * valid class indices in {@code [0, C)} (torch fails on others), so an {@code ignore_index} outside
 * that range never matches and masks nothing, as in torch's decomposition.
 */
final class LossLowering {
  static final int NONE = 0;
  static final int MEAN = 1;
  static final int SUM = 2;

  int[] lower(String base, Call c) {
    return switch (base) {
      case "aten.mse_loss" -> new int[] {mseLoss(c)};
      case "aten.mse_loss_backward" -> new int[] {mseLossBackward(c)};
      case "aten.nll_loss_forward" -> nllLossForward(c);
      case "aten.nll_loss_backward" -> nllLossBackward(c);
      default -> null;
    };
  }

  private static int reduction(Call c, int at) {
    long r = c.integer(at, "reduction", (long) MEAN);
    if (r != NONE && r != MEAN && r != SUM) {
      throw new LoweringException(
          "reduction " + r + " is none of torch's modes (0 none, 1 mean, 2 sum)");
    }
    return (int) r;
  }

  /** {@code (self - target) ** 2}, then reduced: {@code mean}, {@code sum} or kept. */
  private static int mseLoss(Call c) {
    int x = c.tensor(0, "self");
    int dt = c.outDtype >= 0 ? c.outDtype : c.type(x).dtype();
    int[] xt = broadcast(c, c.cast(x, dt), c.cast(c.tensor(1, "target"), dt));
    int diff = c.b.add(Op.SUB, new long[0], xt[0], xt[1]);
    int square = c.b.add(Op.POW, new long[0], diff, c.filled(2.0, dt, c.shape(diff)));
    return reduce(c, square, reduction(c, 2));
  }

  /**
   * {@code norm * (input - target) * grad_output} with {@code norm = 2 / numel} for a mean, else 2.
   */
  private static int mseLossBackward(Call c) {
    int x = c.tensor(1, "self");
    int dt = c.outDtype >= 0 ? c.outDtype : c.type(x).dtype();
    int[] xt = broadcast(c, c.cast(x, dt), c.cast(c.tensor(2, "target"), dt));
    long[] shape = c.shape(xt[0]);
    long numel = Arrays.stream(c.shape(x)).reduce(1, (p, q) -> p * q);
    double norm = reduction(c, 3) == MEAN ? 2.0 / numel : 2.0;
    int diff = c.b.add(Op.SUB, new long[0], xt[0], xt[1]);
    // the factors multiplied first, norm * grad_output (a constant for a seeded loss), then
    // the difference by their product: (input - target) * (norm * grad_output)
    int g = c.expandTo(c.cast(c.tensor(0, "grad_output"), dt), shape);
    int factor = c.b.add(Op.MUL, new long[0], c.filled(norm, dt, shape), g);
    return c.b.add(Op.MUL, new long[0], diff, factor);
  }

  /**
   * {@code nll_loss_forward(self[N, C] or [C], target[N] or [], weight, reduction, ignore_index)}
   * -> (loss, total_weight): minus the picked log-probability of each target, zero where the target
   * is ignored, then reduced; the total weight is the number of targets not ignored (for a mean or
   * sum) or 0 (reduction none over a batch).
   */
  private static int[] nllLossForward(Call c) {
    if (c.has(2, "weight")) {
      return null; // class weights are not lowered yet: the call stays opaque
    }
    int x = c.tensor(0, "self");
    int target = c.cast(c.tensor(1, "target"), Dtype.INT64.code());
    int reduction = reduction(c, 3);
    long ignore = c.integer(4, "ignore_index", -100L);
    long[] xs = c.shape(x);
    checkShapes(xs, c.shape(target));
    int dt = c.type(x).dtype();
    int result = c.b.add(Op.NEG, new long[0], c.b.add(Op.PICK, new long[0], x, target));
    boolean masks = ignore >= 0 && ignore < xs[xs.length - 1];
    int kept = -1;
    if (masks) {
      kept =
          c.b.add(
              Op.NE, new long[0], target, c.filled(ignore, Dtype.INT64.code(), c.shape(target)));
      result = c.b.add(Op.WHERE, new long[0], kept, result, c.filled(0.0, dt, c.shape(result)));
    }
    if (reduction == NONE && xs.length > 1) {
      return new int[] {result, c.scalar(0.0, dt)};
    }
    int totalWeight;
    if (masks) {
      totalWeight = c.cast(reduce(c, c.cast(kept, Dtype.INT64.code()), SUM), dt);
    } else {
      long numel = Arrays.stream(c.shape(result)).reduce(1, (p, q) -> p * q);
      totalWeight = c.scalar(numel, dt);
    }
    int loss = result;
    if (reduction == SUM) {
      loss = reduce(c, result, SUM);
    } else if (reduction == MEAN) {
      loss =
          masks
              ? c.b.add(Op.DIV, new long[0], reduce(c, result, SUM), totalWeight)
              : reduce(c, result, MEAN);
    }
    return new int[] {loss, totalWeight};
  }

  /**
   * {@code nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index,
   * total_weight)}: minus one at each row's target class, zero elsewhere, times the incoming
   * gradient (divided by the total weight for a mean, zero where the target is ignored).
   */
  private static int[] nllLossBackward(Call c) {
    if (c.has(3, "weight")) {
      return null; // class weights are not lowered yet: the call stays opaque
    }
    int x = c.tensor(1, "self");
    int target = c.cast(c.tensor(2, "target"), Dtype.INT64.code());
    int reduction = reduction(c, 4);
    long ignore = c.integer(5, "ignore_index", -100L);
    long[] xs = c.shape(x);
    long[] ts = c.shape(target);
    checkShapes(xs, ts);
    int dt = c.outDtype >= 0 ? c.outDtype : c.type(x).dtype();
    int g = c.cast(c.tensor(0, "grad_output"), dt);
    if (reduction == MEAN) {
      int total = c.cast(c.tensor(6, "total_weight"), dt);
      g = c.b.add(Op.DIV, new long[0], g, c.expandTo(total, c.shape(g)));
    }
    // the target and the grad (per row for reduction none) with the class dim as size 1
    long[] column = Arrays.copyOf(ts, ts.length + 1);
    column[ts.length] = 1;
    int targetColumn = c.expandTo(c.reshape(target, column), xs);
    long classes = xs[xs.length - 1];
    long[] row = new long[xs.length];
    Arrays.fill(row, 1);
    row[xs.length - 1] = classes;
    int classIds = c.expandTo(c.reshape(c.arange(0, classes, 1), row), xs);
    int hit = c.b.add(Op.EQ, new long[0], classIds, targetColumn);
    int minusOne =
        c.b.add(Op.WHERE, new long[0], hit, c.filled(-1.0, dt, xs), c.filled(0.0, dt, xs));
    long[] gs = c.shape(g);
    if (gs.length > 0 && gs.length < xs.length) {
      g = c.reshape(g, column);
    }
    g = c.expandTo(g, xs);
    if (ignore >= 0 && ignore < classes) {
      int kept =
          c.b.add(Op.NE, new long[0], targetColumn, c.filled(ignore, Dtype.INT64.code(), xs));
      g = c.b.add(Op.WHERE, new long[0], kept, g, c.filled(0.0, dt, xs));
    }
    return new int[] {c.b.add(Op.MUL, new long[0], minusOne, g)};
  }

  private static void checkShapes(long[] xs, long[] ts) {
    if (xs.length < 1
        || xs.length > 2
        || ts.length != xs.length - 1
        || (ts.length == 1 && ts[0] != xs[0])) {
      throw new LoweringException(
          "nll_loss takes log-probabilities [N, C] or [C] and targets [N] or [], got "
              + Arrays.toString(xs)
              + " and "
              + Arrays.toString(ts));
    }
  }

  private static int[] broadcast(Call c, int x, int y) {
    long[] shape = Call.broadcastShape(c.shape(x), c.shape(y));
    return new int[] {c.expandTo(x, shape), c.expandTo(y, shape)};
  }

  /** A loss reduced over all its dims (mean or sum), or kept (none). */
  private static int reduce(Call c, int loss, int reduction) {
    int rank = c.type(loss).rank();
    if (reduction == NONE || rank == 0) {
      return loss;
    }
    return c.b.add(reduction == MEAN ? Op.RMEAN : Op.RSUM, attrsAll(0, rank), loss);
  }

  private static long[] attrsAll(int keep, int rank) {
    long[] a = new long[rank + 1];
    a[0] = keep;
    for (int i = 0; i < rank; i++) {
      a[i + 1] = i;
    }
    return a;
  }
}
