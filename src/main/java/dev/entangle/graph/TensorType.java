package dev.entangle.graph;

import java.util.List;

/** Shape and dtype of one tensor value. */
public record TensorType(List<Dim> shape, String dtype) {
  public TensorType {
    shape = List.copyOf(shape);
  }

  /** True when every size is a fixed integer. */
  public boolean isConcrete() {
    return shape.stream().allMatch(d -> d instanceof Dim.Fixed);
  }

  /** The sizes as integers; only valid when {@link #isConcrete()}. */
  public long[] sizes() {
    long[] out = new long[shape.size()];
    for (int i = 0; i < out.length; i++) {
      if (!(shape.get(i) instanceof Dim.Fixed f)) {
        throw new IllegalStateException("symbolic size " + shape.get(i));
      }
      out[i] = f.size();
    }
    return out;
  }

  public int rank() {
    return shape.size();
  }

  public static TensorType of(String dtype, long... sizes) {
    Dim[] dims = new Dim[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      dims[i] = new Dim.Fixed(sizes[i]);
    }
    return new TensorType(List.of(dims), dtype);
  }

  @Override
  public String toString() {
    return dtype + shape;
  }
}
