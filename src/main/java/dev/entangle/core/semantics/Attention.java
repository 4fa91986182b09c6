package dev.entangle.core.semantics;

import static dev.entangle.core.semantics.ShapeChecks.*;

import dev.entangle.core.Op;
import dev.entangle.core.Semantics;
import dev.entangle.core.ShapeException;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import java.util.Arrays;

/**
 * vLLM's attention kernels as the lowering names them.
 *
 * <p>{@code rope[head_size, neox](x, positions, cache)}: vLLM's {@code rotary_embedding}. The
 * positions name one row of {@code cache[max_positions, rot_dim]} per token, its first half the
 * cosines and its second half the sines; x holds each token's heads of {@code head_size} elements
 * one after another, and the first {@code rot_dim} elements of every head rotate: in the GPT-NeoX
 * layout element i pairs with element i + rot_dim/2, otherwise element 2i with 2i + 1. The rest of
 * a head is kept.
 *
 * <p>{@code attention(q[T, Hq, d], k[T, Hkv, d], v[T, Hkv, d])}: vLLM's {@code
 * unified_attention_with_output} as the lowering keeps it, which records neither the scale nor the
 * cache. It is taken as one prompt with an empty cache: causal (token t attends to tokens 0..t),
 * scaled by {@code 1/sqrt(d)} (the scale vLLM's models pass, {@code head_dim ** -0.5}), query head
 * h using key/value head {@code h / (Hq / Hkv)}.
 */
public final class Attention implements Semantics {
  /** The family's semantics, named by its operators in {@link Op}. */
  public static final Attention SEMANTICS = new Attention();

  private Attention() {}

  public static double[] rope(
      Tensor x, Tensor positions, Tensor cache, long headSize, boolean neox) {
    int tokens = positions.numel();
    int total = x.numel();
    if (tokens == 0) {
      return x.values();
    }
    if (total % tokens != 0 || (total / tokens) % headSize != 0) {
      throw new EvalException(
          "rope of "
              + total
              + " elements over "
              + tokens
              + " positions with head size "
              + headSize
              + ": each token must hold whole heads");
    }
    if (cache.rank() != 2) {
      throw new EvalException(
          "rope's cos/sin cache must be 2-d, got " + Arrays.toString(cache.rawShape()));
    }
    int rot = (int) cache.size(1);
    int half = rot / 2;
    if (rot % 2 != 0 || rot > headSize) {
      throw new EvalException(
          "rope's cache rows hold "
              + rot
              + " values; the rotary dim must be even and at most"
              + " the head size "
              + headSize);
    }
    int perToken = total / tokens;
    int h = (int) headSize;
    double[] src = x.raw();
    double[] out = src.clone();
    double[] cs = cache.raw();
    double[] pos = positions.raw();
    long rows = cache.size(0);
    for (int t = 0; t < tokens; t++) {
      double pv = pos[t];
      if (pv != Math.rint(pv) || pv < 0 || pv >= rows) {
        throw new EvalException(
            "rope position " + pv + " of token " + t + " is outside the cache's " + rows + " rows");
      }
      int row = (int) pv * rot;
      for (int head = t * perToken; head < (t + 1) * perToken; head += h) {
        for (int i = 0; i < half; i++) {
          double cos = cs[row + i];
          double sin = cs[row + half + i];
          int a = neox ? head + i : head + 2 * i;
          int b = neox ? head + half + i : head + 2 * i + 1;
          double x1 = src[a];
          double x2 = src[b];
          out[a] = x1 * cos - x2 * sin;
          out[b] = x2 * cos + x1 * sin;
        }
      }
    }
    return out;
  }

  /** The multiply-adds of attention over these shapes. */
  public static long attentionCost(long[] q) {
    return 2 * q[0] * q[0] * q[1] * q[2];
  }

  public static double[] attention(Tensor q, Tensor k, Tensor v) {
    int tokens = (int) q.size(0);
    int qHeads = (int) q.size(1);
    int d = (int) q.size(2);
    int kvHeads = (int) k.size(1);
    int group = qHeads / kvHeads;
    double scale = 1 / Math.sqrt(d);
    double[] qs = q.raw();
    double[] ks = k.raw();
    double[] vs = v.raw();
    double[] out = new double[qs.length];
    double[] scores = new double[tokens];
    for (int h = 0; h < qHeads; h++) {
      int kh = h / group;
      for (int t = 0; t < tokens; t++) {
        int qo = (t * qHeads + h) * d;
        double max = Double.NEGATIVE_INFINITY;
        for (int s = 0; s <= t; s++) {
          int ko = (s * kvHeads + kh) * d;
          double dot = 0;
          for (int i = 0; i < d; i++) {
            dot += qs[qo + i] * ks[ko + i];
          }
          scores[s] = dot * scale;
          max = scores[s] > max || Double.isNaN(scores[s]) ? scores[s] : max;
        }
        double sum = 0;
        for (int s = 0; s <= t; s++) {
          scores[s] = Math.exp(scores[s] - max);
          sum += scores[s];
        }
        for (int s = 0; s <= t; s++) {
          double p = scores[s] / sum;
          int vo = (s * kvHeads + kh) * d;
          for (int i = 0; i < d; i++) {
            out[qo + i] += p * vs[vo + i];
          }
        }
      }
    }
    return out;
  }

  @Override
  public TypeInfo type(Op op, long[] a, TypeInfo[] c, Context context) {
    if (op == Op.ROPE) {
      if (c[0].rank() < 1 || c[0].size(c[0].rank() - 1) % a[0] != 0) {
        throw new ShapeException(
            "rope with head size " + a[0] + " of " + Arrays.toString(c[0].shape()));
      }
      return TypeInfo.tensor(c[0].shape(), c[0].dtype());
    }
    long[] q = c[0].shape();
    long[] k = c[1].shape();
    if (q.length != 3
        || k.length != 3
        || !Arrays.equals(k, c[2].shape())
        || q[0] != k[0]
        || q[2] != k[2]
        || k[1] == 0
        || q[1] % k[1] != 0) {
      throw new ShapeException(
          "attention of q " + Arrays.toString(q) + " over k, v " + Arrays.toString(k));
    }
    return TypeInfo.tensor(q, c[0].dtype());
  }

  @Override
  public double[] compute(Op op, long[] a, Tensor[] in, TypeInfo out, Context context) {
    return op == Op.ROPE
        ? rope(in[0], in[1], in[2], a[0], a[1] != 0)
        : attention(in[0], in[1], in[2]);
  }

  @Override
  public long cost(Op op, Tensor[] in, long elements) {
    return op == Op.ATTENTION ? elements + attentionCost(in[0].rawShape()) : elements;
  }

  @Override
  public String shapeRule(Op op) {
    return op == Op.ROPE
        ? "x[tokens, heads * [head_size]]: x's shape"
        : "q[tokens, q_heads, d], k and v[tokens, kv_heads, d], q_heads a multiple of kv_heads: q's"
            + " shape";
  }
}
