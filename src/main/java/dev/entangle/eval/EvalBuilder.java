package dev.entangle.eval;

import dev.entangle.core.Op;
import dev.entangle.core.TermBuilder;
import dev.entangle.core.TypeInfo;
import dev.entangle.core.numeric.EvalException;
import dev.entangle.core.numeric.Tensor;
import dev.entangle.lower.LoweringException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * A {@link TermBuilder} whose handles are values computed on the spot: the lowering of a graph node
 * ({@link dev.entangle.lower.aten.AtenNormalizer#lower}) run against it evaluates the node. An
 * operator applied to an undefined value gives an undefined value, to an unavailable one an
 * unavailable one; a kernel that fails gives an unavailable value saying why. Once the budget is
 * exhausted, every later value is unavailable for that reason.
 */
public final class EvalBuilder implements TermBuilder {
  private final Kernels kernels;
  private final LongFunction<String> undefinedOrigin;
  private final List<Value> values = new ArrayList<>();
  private String at = "";

  /**
   * @param undefinedOrigin names the source of an {@code undef[id, ...]} value, for messages
   */
  public EvalBuilder(Kernels kernels, LongFunction<String> undefinedOrigin) {
    this.kernels = kernels;
    this.undefinedOrigin = undefinedOrigin;
  }

  public EvalBuilder(Kernels kernels) {
    this(kernels, id -> "undef[" + id + "]");
  }

  /**
   * Names what is being evaluated (e.g. a node), to start the reason of every value that fails from
   * now on; values that fail because an operand did keep that operand's reason.
   */
  public void at(String where) {
    this.at = where == null || where.isEmpty() ? "" : where + ": ";
  }

  /** Adds a value given from outside (an input) and returns its handle. */
  public int input(Value v) {
    values.add(v);
    return values.size() - 1;
  }

  /** The value of a handle. */
  public Value value(int handle) {
    Value v = values.get(handle);
    if (v == null) {
      throw new IllegalStateException("handle " + handle + " was released");
    }
    return v;
  }

  /** The number of handles made so far: handles made later are at least this. */
  public int mark() {
    return values.size();
  }

  /** Forgets the values of handles made since {@code mark}, except those in {@code keep}. */
  public void release(int mark, int... keep) {
    List<Value> kept = new ArrayList<>();
    for (int h : keep) {
      kept.add(h >= mark ? values.get(h) : null);
    }
    for (int h = mark; h < values.size(); h++) {
      values.set(h, null);
    }
    for (int i = 0; i < keep.length; i++) {
      if (keep[i] >= mark) {
        values.set(keep[i], kept.get(i));
      }
    }
  }

  @Override
  public int add(int op, long[] attrs, int... children) {
    return input(evaluate(op, attrs, children));
  }

  @Override
  public TypeInfo type(int handle) {
    TypeInfo t = value(handle).type();
    if (t == null) {
      throw new LoweringException(
          "the type of an operand is unknown: " + ((Value.Unavailable) value(handle)).reason());
    }
    return t;
  }

  private Value evaluate(int op, long[] attrs, int[] children) {
    Op core = Op.of(op);
    if (children.length == 1 && core != null && core.isIdentityOfOne()) {
      return value(children[0]);
    }
    Value[] operands = new Value[children.length];
    for (int i = 0; i < children.length; i++) {
      operands[i] = value(children[i]);
    }
    for (Value v : operands) {
      if (v instanceof Value.Unavailable u) {
        return new Value.Unavailable(typeOrNull(op, attrs, operands), u.reason());
      }
    }
    TypeInfo[] types = new TypeInfo[children.length];
    Tensor[] tensors = new Tensor[children.length];
    Value.Undefined undefined = null;
    for (int i = 0; i < children.length; i++) {
      types[i] = operands[i].type();
      tensors[i] = operands[i].tensorOrNull();
      if (undefined == null && operands[i] instanceof Value.Undefined u) {
        undefined = u;
      }
    }
    TypeInfo type;
    try {
      type = kernels.type(op, attrs, types);
    } catch (EvalException e) {
      return new Value.Unavailable(null, at + e.getMessage());
    }
    if (undefined != null) {
      return new Value.Undefined(type, undefined.origin());
    }
    if (core == Op.UNDEF) {
      return new Value.Undefined(type, undefinedOrigin.apply(attrs[0]));
    }
    try {
      return new Value.Known(kernels.apply(op, attrs, tensors));
    } catch (EvalException e) {
      return new Value.Unavailable(type, at + e.getMessage());
    }
  }

  /** The result type when every operand's type is known, else null. */
  private TypeInfo typeOrNull(int op, long[] attrs, Value[] operands) {
    TypeInfo[] types = new TypeInfo[operands.length];
    for (int i = 0; i < operands.length; i++) {
      types[i] = operands[i].type();
      if (types[i] == null) {
        return null;
      }
    }
    try {
      return kernels.type(op, attrs, types);
    } catch (EvalException e) {
      return null;
    }
  }
}
