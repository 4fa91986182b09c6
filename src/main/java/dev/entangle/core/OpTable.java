package dev.entangle.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Names of all operator ids: the core {@link Op}s and the opaque operators met in the input graphs.
 *
 * <p>An opaque operator is identified by its ATen target together with its non-tensor arguments and
 * its result type, so two opaque nodes are the same operator exactly when PyTorch would compute the
 * same function of their tensor inputs. One table serves a whole run.
 */
public final class OpTable {
  /**
   * The arguments of an opaque call as plain values, so that a consumer can read them without
   * parsing the signature: {@code Long}, {@code Double}, {@code Boolean}, {@code String} (also the
   * name of a dtype, device, layout or memory format, and a symbolic size's expression), {@code
   * null} (None), {@code List<Object>}, and {@link Operand} for a tensor argument.
   *
   * @param positional the positional arguments in order
   * @param keywords the keyword arguments in call order
   */
  public record Arguments(List<Object> positional, Map<String, Object> keywords) {
    public static final Arguments NONE = new Arguments(List.of(), Map.of());

    public Arguments {
      positional = Collections.unmodifiableList(new ArrayList<>(positional));
      keywords = Collections.unmodifiableMap(new LinkedHashMap<>(keywords));
    }
  }

  /** A tensor argument: the operator's child {@code index}. */
  public record Operand(int index) {}

  private final Map<String, Integer> opaqueIds = new HashMap<>();
  private final List<String> opaqueNames = new ArrayList<>();
  private final List<String> opaqueTargets = new ArrayList<>();
  private final List<TypeInfo> opaqueTypes = new ArrayList<>();
  private final List<Arguments> opaqueArguments = new ArrayList<>();

  /** The id of the opaque operator with this signature, allocating one when new. */
  public int opaque(String target, String signature, TypeInfo result) {
    return opaque(target, signature, Arguments.NONE, result);
  }

  /**
   * The id of the opaque operator with this signature, allocating one when new and keeping its
   * arguments (one signature always has the same arguments).
   */
  public synchronized int opaque(
      String target, String signature, Arguments arguments, TypeInfo result) {
    String key = signature + " -> " + result;
    Integer id = opaqueIds.get(key);
    if (id != null) {
      return id;
    }
    int newId = Op.OPAQUE_BASE + opaqueNames.size();
    opaqueIds.put(key, newId);
    opaqueNames.add(signature);
    opaqueTargets.add(target);
    opaqueTypes.add(result);
    opaqueArguments.add(arguments);
    return newId;
  }

  public static boolean isOpaque(int id) {
    return id >= Op.OPAQUE_BASE;
  }

  /** The result type of an opaque operator. */
  public TypeInfo opaqueType(int id) {
    return opaqueTypes.get(id - Op.OPAQUE_BASE);
  }

  /** The arguments of an opaque operator's call, tensors as {@link Operand}s. */
  public Arguments opaqueArguments(int id) {
    return opaqueArguments.get(id - Op.OPAQUE_BASE);
  }

  /** The ATen target of an opaque operator. */
  public String opaqueTarget(int id) {
    return opaqueTargets.get(id - Op.OPAQUE_BASE);
  }

  /** A readable name of any operator id. */
  public String name(int id) {
    if (isOpaque(id)) {
      return opaqueNames.get(id - Op.OPAQUE_BASE);
    }
    Op op = Op.of(id);
    return op == null ? "op" + id : op.symbol();
  }
}
