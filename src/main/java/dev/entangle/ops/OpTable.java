package dev.entangle.ops;

import java.util.ArrayList;
import java.util.HashMap;
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
  private final Map<String, Integer> opaqueIds = new HashMap<>();
  private final List<String> opaqueNames = new ArrayList<>();
  private final List<String> opaqueTargets = new ArrayList<>();
  private final List<TypeInfo> opaqueTypes = new ArrayList<>();

  /** The id of the opaque operator with this signature, allocating one when new. */
  public synchronized int opaque(String target, String signature, TypeInfo result) {
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
    return newId;
  }

  public static boolean isOpaque(int id) {
    return id >= Op.OPAQUE_BASE;
  }

  /** The result type of an opaque operator. */
  public TypeInfo opaqueType(int id) {
    return opaqueTypes.get(id - Op.OPAQUE_BASE);
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
