package dev.entangle.importer;

import dev.entangle.graph.Meta;
import dev.entangle.graph.NodeOp;
import dev.entangle.graph.TensorType;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code name = self.attr}: module attributes, usually the 0-d tensor constants torch lifts out of
 * the code ({@code _tensor_constant0}), whose value the printed code does not show and the user
 * gives ({@code --constant NAME=VALUE}). An unannotated constant takes the type of its first user
 * that returns its argument's type ({@code lift_fresh_copy}, {@code clone}, ...).
 */
final class TensorConstants {
  private final SourceFile src;
  private final TypeAnnotations types;
  private final Map<String, Double> values;
  private final Set<String> used;
  private final Map<String, Statement.Assign> sameTypeUsers = new HashMap<>();

  /**
   * @param used receives the keys of {@code values} that this graph reads
   */
  TensorConstants(
      SourceFile src, TypeAnnotations types, Map<String, Double> values, Set<String> used) {
    this.src = src;
    this.types = types;
    this.values = values;
    this.used = used;
  }

  /** Records an annotated statement that returns the type of its first argument, {@code name}. */
  void sameTypeUser(String name, Statement.Assign user) {
    sameTypeUsers.putIfAbsent(name, user);
  }

  /** {@code name = self.attr}: a module attribute, usually a tensor constant. */
  NodeSpec getAttr(Statement.Assign a, String attr) {
    TensorType t;
    if (a.annotation() != null) {
      t = types.parse(a.annotation(), a.line());
    } else if (sameTypeUsers.containsKey(a.target())) {
      Statement.Assign user = sameTypeUsers.get(a.target());
      t = types.parse(user.annotation(), user.line());
    } else {
      throw src.error(
          a.line(),
          "the attribute `"
              + a.target()
              + "` has no type annotation, and its type cannot be"
              + " derived from its users",
          "Annotate it as printed with annotations, e.g. `"
              + a.target()
              + ": \"f32[]\" = self."
              + attr
              + "`.");
    }
    String key =
        values.containsKey(attr) ? attr : values.containsKey(a.target()) ? a.target() : null;
    Double value = null;
    if (t.rank() == 0) {
      if (key == null) {
        throw src.error(
            a.line(),
            "the 0-d tensor constant `" + attr + "` has a value the printed code does not show",
            "Give its value: pass --constant " + attr + "=VALUE.");
      }
      value = values.get(key);
    } else if (key != null) {
      throw src.error(
          a.line(),
          "a value is given for `"
              + attr
              + "`, but it is a tensor of shape "
              + t.shape()
              + ", not a 0-d constant",
          "Drop --constant " + key + "; only 0-d constants take a value.");
    }
    if (key != null) {
      used.add(key);
    }
    return new NodeSpec(
        NodeOp.GET_ATTR,
        attr,
        List.of(),
        Map.of(),
        new Meta(List.of(t), false, a.stackTrace(), null, value));
  }
}
