package dev.entangle.refine;

import dev.entangle.lower.CoreProgram;
import dev.entangle.lower.CoreRelation;
import dev.entangle.lower.CoreTerm;
import dev.entangle.lower.CoreValue;
import dev.entangle.lower.ValueKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * G_d as the checker explores it: the lowered program, with per-value flags at hand: whether a
 * value is carried as its term (computed from constants alone, or without defined contents),
 * whether it has no defined contents, and whether G_d returns it. Copies of one computation are one
 * value ({@link IdenticalValues}): the checker uses representatives only, and {@link #deps} and
 * {@link #users} link representatives.
 */
final class GdModel {
  final CoreProgram program;

  /** Inlined as its term: a constant, or an undefined value (which never waits on anything). */
  final boolean[] constant;

  final boolean[] undefined;
  final boolean[] output;

  private final int[] rep;
  private final int[] definer;
  private final int[][] deps;
  private final int[][] users;

  GdModel(CoreProgram program) {
    this.program = program;
    int n = program.size();
    IdenticalValues.Copies copies = IdenticalValues.of(program);
    rep = copies.rep();
    definer = copies.definer();
    deps = new int[n][];
    List<Set<Integer>> us = new ArrayList<>(n);
    for (int v = 0; v < n; v++) {
      us.add(new TreeSet<>());
    }
    for (int v = 0; v < n; v++) {
      boolean computed = program.value(rep[v]).op() >= 0; // not an input passed on
      for (int d : program.deps(v)) {
        if (computed && rep[d] != rep[v]) {
          us.get(rep[d]).add(rep[v]);
        }
      }
      if (rep[v] == v) {
        Set<Integer> ds = new LinkedHashSet<>();
        for (int d : program.deps(definer[v])) {
          ds.add(rep[d]);
        }
        deps[v] = ds.stream().mapToInt(Integer::intValue).toArray();
      }
    }
    users = new int[n][];
    for (int v = 0; v < n; v++) {
      users[v] = us.get(v).stream().mapToInt(Integer::intValue).toArray();
    }
    constant = new boolean[n];
    undefined = new boolean[n];
    output = new boolean[n];
    for (CoreValue v : program.values()) {
      constant[v.id()] = v.kind().inlined();
      undefined[v.id()] = v.kind() == ValueKind.UNDEFINED;
      output[v.id()] = v.output();
    }
  }

  /**
   * Whether an output relation may use the value: G_d's outputs, and its inputs, which the user
   * supplies and so has at hand.
   */
  boolean available(int id) {
    return output[id] || input(id);
  }

  /** Whether the value is a G_d input (given by the user, not computed). */
  boolean input(int id) {
    return program.value(id).kind() == ValueKind.INPUT;
  }

  CoreValue value(int id) {
    return program.value(id);
  }

  /** The representative of the value's copies (itself when it has none). */
  int rep(int id) {
    return rep[id];
  }

  /** The relation with every G_d value replaced by its representative. */
  CoreRelation representing(CoreRelation rel) {
    Map<Integer, List<CoreTerm>> inputs = new LinkedHashMap<>();
    rel.inputs().forEach((v, terms) -> inputs.put(v, representing(terms)));
    List<List<CoreTerm>> equalities = new ArrayList<>();
    rel.equalities().forEach(group -> equalities.add(representing(group)));
    List<CoreRelation.Expect> expects = new ArrayList<>();
    for (CoreRelation.Expect e : rel.expects()) {
      expects.add(new CoreRelation.Expect(e.gs(), e.gd().mapLeaves(this::rep), e.text()));
    }
    return new CoreRelation(inputs, equalities, rel.outputs(), expects);
  }

  private List<CoreTerm> representing(List<CoreTerm> terms) {
    List<CoreTerm> out = new ArrayList<>(terms.size());
    terms.forEach(t -> out.add(t.mapLeaves(this::rep)));
    return out;
  }

  /** The copy whose operation computes the value's representative ({@link IdenticalValues}). */
  int definer(int id) {
    return definer[rep[id]];
  }

  /** The representatives of the values the value's representative reads. */
  int[] deps(int id) {
    return deps[rep[id]];
  }

  /** The representatives of the values computed from any copy of the value. */
  int[] users(int id) {
    return users[rep[id]];
  }

  int size() {
    return program.size();
  }
}
