package dev.entangle.importer;

import java.util.List;

/**
 * An operator schema as far as the importer needs it: argument names, which arguments the operator
 * mutates, and how many values it returns.
 *
 * @param target the operator as a node target, e.g. {@code _C.rms_norm.default}
 * @param params the arguments in schema order
 * @param returnCount how many values it returns ({@code -> ()} is 0)
 * @param where the schema file and line it was declared on, for messages
 */
record OpSchema(String target, List<Param> params, int returnCount, String where) {
  OpSchema {
    params = List.copyOf(params);
  }

  /**
   * One argument.
   *
   * @param type the type as written, e.g. {@code Tensor(a!)}
   * @param mutated whether the type carries {@code !} (the operator writes it)
   * @param tensorList whether it is a list of tensors ({@code Tensor[]})
   */
  record Param(String name, String type, boolean mutated, boolean tensorList) {}

  /** The mutated arguments, in schema order. */
  List<Param> mutatedParams() {
    return params.stream().filter(Param::mutated).toList();
  }

  Param param(String name) {
    for (Param p : params) {
      if (p.name().equals(name)) {
        return p;
      }
    }
    return null;
  }

  /** The schema as a short text for messages. */
  String signature() {
    StringBuilder sb = new StringBuilder(target).append('(');
    for (int i = 0; i < params.size(); i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(params.get(i).type()).append(' ').append(params.get(i).name());
    }
    return sb.append(')').toString();
  }
}
