package dev.entangle.rules.linear;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Hash-consing of atoms and forms to small ints, so that equal forms have equal ids and compare in
 * O(1). Ids are given in the order of first appearance: a fixed order of construction gives fixed
 * ids.
 */
public final class FormTable {
  private final Map<Atom, Integer> atomIds = new HashMap<>();
  private final List<Atom> atoms = new ArrayList<>();
  private final Map<LinearForm, Integer> formIds = new HashMap<>();
  private final List<LinearForm> forms = new ArrayList<>();

  /** The shape of the operand of each layout atom (by atom id), where it is known. */
  private final Map<Integer, long[]> operandShapes = new HashMap<>();

  /** The atom's id, new ones numbered from 0. */
  public int atom(Atom a) {
    Integer id = atomIds.get(a);
    if (id == null) {
      id = atoms.size();
      atoms.add(a);
      atomIds.put(a, id);
    }
    return id;
  }

  public Atom atomAt(int id) {
    return atoms.get(id);
  }

  /**
   * The id of a layout atom whose operand has {@code operandShape} (an atom's operands have one
   * shape whichever way it is built), recorded so that a composition with it can tell an identity.
   */
  public int layoutAtom(Atom a, long[] operandShape) {
    int id = atom(a);
    if (operandShape != null) {
      operandShapes.putIfAbsent(id, operandShape);
    }
    return id;
  }

  /** The shape of a layout atom's operand, or null when it is not known. */
  public long[] operandShape(int atom) {
    return operandShapes.get(atom);
  }

  /** The form's id, new ones numbered from 0. */
  public int form(LinearForm f) {
    Integer id = formIds.get(f);
    if (id == null) {
      id = forms.size();
      forms.add(f);
      formIds.put(f, id);
    }
    return id;
  }

  public LinearForm formAt(int id) {
    return forms.get(id);
  }

  /** The form {@code 1 · atom} of an interned atom. */
  public LinearForm atomForm(Atom a) {
    return LinearForm.atom(atom(a));
  }

  public int atomCount() {
    return atoms.size();
  }

  public int formCount() {
    return forms.size();
  }
}
