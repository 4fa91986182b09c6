package dev.entangle.lower.aten;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import java.util.Arrays;

/**
 * Scaled dot-product attention as torch's CPU kernel computes it, forward and backward ({@code
 * _scaled_dot_product_flash_attention_for_cpu} and its {@code _backward}), written in core
 * operators: the scores {@code q k^T * scale} (masked by causality or a given mask), their softmax
 * over the keys, its product with the values; the backward gives {@code dV = P^T dO}, {@code dS = P
 * * (dO V^T - rowsum(dO * out))}, {@code dQ = dS K * scale} and {@code dK = dS^T Q * scale}. Every
 * head is independent, so the head laws of products and row-wise operators read a split of the
 * heads across ranks. The backward reads what the forward saved, as torch's kernel does: the
 * probabilities from the logsumexp, and each row's {@code dO . out}. Dropout (a random mask) and
 * keys and values with fewer heads than the queries stay opaque.
 */
final class AttentionLowering {
  int[] lower(String base, Call c) {
    return switch (base) {
      case "aten._scaled_dot_product_flash_attention_for_cpu" -> forward(c);
      case "aten._scaled_dot_product_flash_attention_for_cpu_backward" -> backward(c);
      default -> null;
    };
  }

  /** The operands and settings of one attention call. */
  private record Attend(int q, int k, int v, int scores, int dtype, double scale) {}

  /**
   * The masked, scaled scores of q over k; null when the call is not one this lowering reads
   * (dropout, fewer key heads, shapes that do not fit).
   */
  private static Attend attend(Call c, int q, int k, int v, int dropout, int causal) {
    if (c.number(dropout, "dropout_p", 0.0) != 0.0) {
      return null; // a random mask: no defined value
    }
    long[] qs = c.shape(q);
    long[] ks = c.shape(k);
    long[] vs = c.shape(v);
    int r = qs.length;
    if (r < 2
        || ks.length != r
        || vs.length != r
        || ks[r - 1] != qs[r - 1]
        || ks[r - 2] != vs[r - 2]
        || !sameBatch(qs, ks)
        || !sameBatch(qs, vs)) {
      return null;
    }
    int dt = c.type(q).dtype();
    double scale = c.has(-1, "scale") ? c.number(-1, "scale", null) : 1.0 / Math.sqrt(qs[r - 1]);
    long l = qs[r - 2];
    long s = ks[r - 2];
    long[] scoresShape = qs.clone();
    scoresShape[r - 1] = s;
    int scores = scaled(c, c.b.add(Op.MATMUL, new long[0], q, lastTwoSwapped(c, k)), scale, dt);
    if (c.bool(causal, "is_causal", false)) {
      // query i sees keys 0 .. i (torch's causal mask is aligned at the top left)
      int sees = c.triangle(l, s, 0, false, Dtype.INT64.code());
      scores = masked(c, scores, c.expandTo(sees, scoresShape), dt, scoresShape);
    }
    if (c.has(-1, "attn_mask")) {
      int mask = c.expandTo(c.tensor(-1, "attn_mask"), scoresShape);
      scores =
          c.type(mask).dtype() == Dtype.BOOL.code()
              ? masked(c, scores, mask, dt, scoresShape)
              : c.b.add(Op.ADD, new long[0], scores, c.cast(mask, dt));
    }
    return new Attend(q, k, v, scores, dt, scale);
  }

  private static int[] forward(Call c) {
    Attend a = attend(c, c.tensor(0, "query"), c.tensor(1, "key"), c.tensor(2, "value"), 3, 4);
    if (a == null) {
      return null;
    }
    int probs = c.b.add(Op.SOFTMAX, new long[] {c.type(a.scores()).rank() - 1}, a.scores());
    int out = c.b.add(Op.MATMUL, new long[0], probs, a.v());
    return new int[] {out, logSumExp(c, a)};
  }

  /**
   * The backward as torch's kernel computes it from what the forward saved: the probabilities
   * {@code exp(scores - logsumexp)} and {@code dS = P * (dO V^T - rowsum(dO * out))}. A saved value
   * of the scores' own shape is the probabilities themselves (torch's math decomposition of the
   * forward returns them in the logsumexp's place); any other shape stays opaque.
   */
  private static int[] backward(Call c) {
    Attend a = attend(c, c.tensor(1, "query"), c.tensor(2, "key"), c.tensor(3, "value"), 6, 7);
    if (a == null) {
      return null;
    }
    int dOut = c.tensor(0, "grad_out");
    int out = c.tensor(4, "out");
    int saved = c.tensor(5, "logsumexp");
    long[] ss = c.shape(a.scores());
    int r = ss.length;
    long[] rows = Arrays.copyOf(ss, r - 1);
    long[] column = rows.clone();
    column = Arrays.copyOf(column, r);
    column[r - 1] = 1;
    int probs;
    if (Arrays.equals(c.shape(saved), rows)) {
      int lse = c.expandTo(c.reshape(c.cast(saved, a.dtype()), column), ss);
      probs = c.b.add(Op.EXP, new long[0], c.b.add(Op.SUB, new long[0], a.scores(), lse));
    } else if (Arrays.equals(c.shape(saved), ss)) {
      probs = c.cast(saved, a.dtype());
    } else {
      return null;
    }
    if (!Arrays.equals(c.shape(out), c.shape(dOut))) {
      return null;
    }
    int dV = c.b.add(Op.MATMUL, new long[0], lastTwoSwapped(c, probs), dOut);
    int dP = c.b.add(Op.MATMUL, new long[0], dOut, lastTwoSwapped(c, a.v()));
    int rowSums = c.b.add(Op.RSUM, new long[] {1, r - 1}, c.b.add(Op.MUL, new long[0], dOut, out));
    int dS =
        c.b.add(
            Op.MUL, new long[0], probs, c.b.add(Op.SUB, new long[0], dP, c.expandTo(rowSums, ss)));
    int dQ = scaled(c, c.b.add(Op.MATMUL, new long[0], dS, a.k()), a.scale(), a.dtype());
    int dK =
        scaled(
            c, c.b.add(Op.MATMUL, new long[0], lastTwoSwapped(c, dS), a.q()), a.scale(), a.dtype());
    return new int[] {dQ, dK, dV};
  }

  /** The log of each row's sum of exponentials of the masked, scaled scores: {@code [..., L]}. */
  private static int logSumExp(Call c, Attend a) {
    int scores = a.scores();
    int r = c.type(scores).rank();
    int max = c.b.add(Op.RAMAX, new long[] {1, r - 1}, scores);
    int shifted = c.b.add(Op.SUB, new long[0], scores, c.expandTo(max, c.shape(scores)));
    int sum = c.b.add(Op.RSUM, new long[] {0, r - 1}, c.b.add(Op.EXP, new long[0], shifted));
    int lse =
        c.b.add(
            Op.ADD, new long[0], c.b.add(Op.LOG, new long[0], sum), c.reshape(max, c.shape(sum)));
    // torch keeps it in the accumulating dtype: float64 for float64 operands, else float32
    return c.cast(lse, a.dtype() == Dtype.FLOAT64.code() ? a.dtype() : Dtype.FLOAT32.code());
  }

  private static boolean sameBatch(long[] a, long[] b) {
    for (int i = 0; i < a.length - 2; i++) {
      if (a[i] != b[i]) {
        return false;
      }
    }
    return true;
  }

  private static int lastTwoSwapped(Call c, int x) {
    int r = c.type(x).rank();
    return LayoutLowering.permute(c, x, LayoutLowering.swap(r, r - 2, r - 1));
  }

  private static int scaled(Call c, int x, double scale, int dt) {
    return scale == 1.0 ? x : c.b.add(Op.MUL, new long[0], x, c.filled(scale, dt, c.shape(x)));
  }

  private static int masked(Call c, int scores, int sees, int dt, long[] shape) {
    return c.b.add(
        Op.WHERE, new long[0], sees, scores, c.filled(Double.NEGATIVE_INFINITY, dt, shape));
  }
}
