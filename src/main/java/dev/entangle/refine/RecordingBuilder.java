package dev.entangle.refine;

import dev.entangle.ops.TermBuilder;
import dev.entangle.ops.TypeInfo;
import java.util.ArrayList;
import java.util.List;

/** Passes terms to another builder and remembers every handle it returned. */
final class RecordingBuilder implements TermBuilder {
  private final TermBuilder inner;
  final List<Integer> handles = new ArrayList<>();

  RecordingBuilder(TermBuilder inner) {
    this.inner = inner;
  }

  @Override
  public int add(int op, long[] attrs, int... children) {
    int h = inner.add(op, attrs, children);
    handles.add(h);
    return h;
  }

  @Override
  public TypeInfo type(int handle) {
    return inner.type(handle);
  }
}
