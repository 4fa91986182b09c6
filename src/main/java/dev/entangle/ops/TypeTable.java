package dev.entangle.ops;

import java.util.ArrayList;
import java.util.List;

/** A {@link TermBuilder} that keeps only types: used to check a graph's shapes before checking. */
public final class TypeTable implements TermBuilder {
  private final Shapes shapes;
  private final List<TypeInfo> types = new ArrayList<>();

  public TypeTable(Shapes shapes) {
    this.shapes = shapes;
  }

  /** Adds a value of a known type (a graph input) and returns its handle. */
  public int input(TypeInfo type) {
    types.add(type);
    return types.size() - 1;
  }

  @Override
  public int add(int op, long[] attrs, int... children) {
    TypeInfo[] c = new TypeInfo[children.length];
    for (int i = 0; i < c.length; i++) {
      c[i] = types.get(children[i]);
    }
    types.add(shapes.infer(op, attrs, c));
    return types.size() - 1;
  }

  @Override
  public TypeInfo type(int handle) {
    return types.get(handle);
  }
}
