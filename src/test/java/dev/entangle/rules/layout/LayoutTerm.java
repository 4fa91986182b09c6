package dev.entangle.rules.layout;

import dev.entangle.core.Dtype;
import dev.entangle.core.Op;
import dev.entangle.core.OpTable;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.eval.Kernels;
import dev.entangle.eval.WorkBudget;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * A layout term for the tests: leaves and {@code slice}, {@code concat}, {@code reshape}, {@code
 * permute}, {@code expand} nodes, with their shapes, their lemma-case text, their block map, and
 * their value computed by the interpreter's kernels.
 */
sealed interface LayoutTerm {
  long[] shape();

  /** The lemma-case text; a leaf's type is written at its first use. */
  String render(Set<String> declared);

  default String render() {
    return render(new java.util.HashSet<>());
  }

  record Leaf(String name, long[] shape) implements LayoutTerm {
    @Override
    public String render(Set<String> declared) {
      if (!declared.add(name)) {
        return name;
      }
      StringJoiner dims = new StringJoiner(",", "[", "]");
      for (long s : shape) {
        dims.add(Long.toString(s));
      }
      return name + ":f64" + dims;
    }
  }

  record Node(Op op, long[] attrs, List<LayoutTerm> parts, long[] shape) implements LayoutTerm {
    @Override
    public String render(Set<String> declared) {
      StringJoiner a = new StringJoiner(" ", "[", "]");
      for (long v : attrs) {
        a.add(Long.toString(v));
      }
      StringBuilder sb = new StringBuilder("(").append(op.symbol()).append(a);
      for (LayoutTerm p : parts) {
        sb.append(' ').append(p.render(declared));
      }
      return sb.append(')').toString();
    }
  }

  static Leaf leaf(String name, long... shape) {
    return new Leaf(name, shape);
  }

  static LayoutTerm slice(LayoutTerm x, int dim, long start, long end, long step) {
    long[] s = x.shape().clone();
    s[dim] = (end - start + step - 1) / step;
    return new Node(Op.SLICE, new long[] {dim, start, end, step}, List.of(x), s);
  }

  static LayoutTerm slice(LayoutTerm x, int dim, long start, long end) {
    return slice(x, dim, start, end, 1);
  }

  static LayoutTerm concat(List<LayoutTerm> xs, int dim) {
    if (xs.size() == 1) {
      return xs.get(0);
    }
    long[] s = xs.get(0).shape().clone();
    s[dim] = xs.stream().mapToLong(x -> x.shape()[dim]).sum();
    return new Node(Op.CONCAT, new long[] {dim}, List.copyOf(xs), s);
  }

  static LayoutTerm reshape(LayoutTerm x, long... sizes) {
    return new Node(Op.RESHAPE, sizes, List.of(x), sizes.clone());
  }

  static LayoutTerm permute(LayoutTerm x, long... dims) {
    long[] s = new long[dims.length];
    for (int i = 0; i < dims.length; i++) {
      s[i] = x.shape()[(int) dims[i]];
    }
    return new Node(Op.PERMUTE, dims, List.of(x), s);
  }

  static LayoutTerm expand(LayoutTerm x, long... sizes) {
    return new Node(Op.EXPAND, sizes, List.of(x), sizes.clone());
  }

  /** The n equal shards of x along dim. */
  static List<LayoutTerm> shards(LayoutTerm x, int dim, int n) {
    long c = x.shape()[dim] / n;
    List<LayoutTerm> out = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      out.add(slice(x, dim, r * c, (r + 1) * c));
    }
    return out;
  }

  /**
   * All-to-all as the collectives lower it: rank r receives chunk r (along {@code split}) of every
   * rank's input, concatenated along {@code cat} in rank order.
   */
  static List<LayoutTerm> allToAll(List<LayoutTerm> in, int split, int cat) {
    int n = in.size();
    List<LayoutTerm> out = new ArrayList<>();
    for (int r = 0; r < n; r++) {
      List<LayoutTerm> chunks = new ArrayList<>();
      for (LayoutTerm x : in) {
        chunks.add(shards(x, split, n).get(r));
      }
      out.add(concat(chunks, cat));
    }
    return out;
  }

  /** The term's block map, leaf k standing for source k (its index in {@code leaves}). */
  static BlockMap map(LayoutTerm t, List<String> leaves) {
    if (t instanceof Leaf l) {
      int k = leaves.indexOf(l.name());
      if (k < 0) {
        k = leaves.size();
        leaves.add(l.name());
      }
      return BlockMap.identity(k, l.shape());
    }
    Node n = (Node) t;
    List<BlockMap> ms = new ArrayList<>();
    for (LayoutTerm p : n.parts()) {
      BlockMap m = map(p, leaves);
      if (m == null) {
        return null;
      }
      ms.add(m);
    }
    long[] a = n.attrs();
    return switch (n.op()) {
      case SLICE -> ms.get(0).slice((int) a[0], a[1], a[2], a[3]);
      case CONCAT -> BlockMap.concat(ms, (int) a[0]);
      case RESHAPE -> ms.get(0).reshape(a);
      case PERMUTE -> ms.get(0).permute(a);
      case EXPAND -> ms.get(0).expand(a);
      default -> throw new IllegalStateException(n.op().toString());
    };
  }

  /** The term's value, by the interpreter's kernels, over the leaves' values. */
  static Tensor eval(LayoutTerm t, Map<String, Tensor> leaves) {
    if (t instanceof Leaf l) {
      return leaves.get(l.name());
    }
    Node n = (Node) t;
    Tensor[] in = n.parts().stream().map(p -> eval(p, leaves)).toArray(Tensor[]::new);
    return new Kernels(new OpTable(), WorkBudget.defaults()).apply(n.op().id(), n.attrs(), in);
  }

  /** A leaf's value whose element k of leaf number i is {@code 100000·(i+1) + k}. */
  static Tensor tagged(int i, long[] shape) {
    double[] v = new double[(int) Tensor.numel(shape)];
    for (int k = 0; k < v.length; k++) {
      v[k] = 100_000.0 * (i + 1) + k;
    }
    return Tensor.of(Dtype.FLOAT64.code(), shape, v);
  }

  static String show(long[] s) {
    return Arrays.toString(s);
  }
}
