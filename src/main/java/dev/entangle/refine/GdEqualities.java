package dev.entangle.refine;

import dev.entangle.core.CoreTerm;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Groups of G_d expressions known to be equal: the relation file's {@code equalities}, and those
 * the operator checks prove along the way. A check's e-graph holds only true equalities (given
 * R_i), so when one of its classes holds two different G_d tensors, or slices of them, that fact
 * about G_d is kept for the checks that follow. This is how ranks that replicate a value are seen
 * to compute the same thing from it: key/value heads that several ranks hold, say, which the
 * relation relates through one rank only.
 *
 * <p>A group enters an operator's e-graph once the check has one of its tensors in view (see {@link
 * #touching}). One thread adds groups while checks run ahead of their turn read them.
 */
final class GdEqualities {
  private final List<List<CoreTerm>> groups = new ArrayList<>();
  private final Map<Integer, List<Integer>> byLeaf = new HashMap<>();
  private final Map<CoreTerm, List<Integer>> byMember = new HashMap<>();

  GdEqualities(List<List<CoreTerm>> fromRelationFile) {
    for (List<CoreTerm> g : fromRelationFile) {
      add(g);
    }
  }

  synchronized List<CoreTerm> group(int i) {
    return groups.get(i);
  }

  /** The indices of the groups that read G_d value {@code leaf} (a copy). */
  synchronized List<Integer> touching(int leaf) {
    return List.copyOf(byLeaf.getOrDefault(leaf, List.of()));
  }

  /**
   * Keeps a group of at least two expressions unless one known group already holds them all.
   * Returns whether it was kept.
   */
  synchronized boolean add(List<CoreTerm> group) {
    if (group.size() < 2 || covered(group)) {
      return false;
    }
    int i = groups.size();
    groups.add(List.copyOf(group));
    Set<Integer> leaves = new HashSet<>();
    for (CoreTerm e : group) {
      e.leaves(leaves);
      byMember.computeIfAbsent(e, k -> new ArrayList<>()).add(i);
    }
    for (int l : leaves) {
      byLeaf.computeIfAbsent(l, k -> new ArrayList<>()).add(i);
    }
    return true;
  }

  private boolean covered(List<CoreTerm> group) {
    for (int i : byMember.getOrDefault(group.get(0), List.of())) {
      if (groups.get(i).containsAll(group)) {
        return true;
      }
    }
    return false;
  }
}
