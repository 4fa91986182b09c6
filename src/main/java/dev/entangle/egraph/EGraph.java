package dev.entangle.egraph;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Objects;
import java.util.function.IntFunction;

/**
 * An e-graph: e-classes of equivalent e-nodes, closed under congruence, each class carrying an
 * {@link Analysis} fact. A data structure only (add, union, find, rebuild); the {@link Runner} owns
 * the rewrite loop and its limits.
 *
 * <p><b>Call {@link #rebuild} before queries.</b> {@link #union} defers congruence repair, so after
 * unions the hashcons, the class node lists, the parent lists and the operator index may hold stale
 * entries until {@link #rebuild}; {@link #add} and {@link #lookup} stay correct but may miss
 * equalities not yet propagated. Searching a graph that is not {@linkplain #isClean clean} is an
 * error. Adding nodes to a clean graph keeps it clean.
 *
 * <p>Class ids are dense ints in creation order; a class absorbed by a union keeps its id as an
 * alias of the surviving one ({@link #find}). Every iteration order that reaches class ids is fixed
 * (ascending ids, node insertion order), so the same calls give the same ids. Not thread-safe.
 *
 * @param <D> the analysis fact type
 */
public final class EGraph<D> {
  private final Analysis<D> analysis;

  /*
   * The union-find, the class store, the hashcons and the operator index are read and put back by
   * EGraphImage (the saturation memo's snapshots), hence package-private.
   */

  final UnionFind uf = new UnionFind();

  /** Index = class id; null once the class is absorbed by a union. */
  final ArrayList<EClass<D>> classes = new ArrayList<>();

  /** The hashcons: canonical node -> class (possibly not canonical; use find). */
  final HashMap<ENode, Integer> memo = new HashMap<>();

  /** Operator id -> classes holding a node with that operator; exact and ascending when clean. */
  final ArrayList<IntList> byOp = new ArrayList<>();

  private final ArrayList<ENode> pendingNodes = new ArrayList<>();
  private final IntList pendingClasses = new IntList();
  private final ArrayList<ENode> analysisNodes = new ArrayList<>();
  private final IntList analysisClasses = new IntList();

  /** The number of canonical classes (read by {@link EGraphImage}). */
  int classCount;

  /** A union happened since the last rebuild. */
  private boolean dirty;

  /** Counts changes (new classes and unions), so snapshots can tell they are stale. */
  private long version;

  /** Changes with every new class, union and restore ({@link #stamp}). */
  private long stamp;

  /**
   * Classes (possibly absorbed ids) that are new or gained nodes or facts since the last take (read
   * by {@link EGraphImage}).
   */
  final BitSet touched = new BitSet();

  /** Where changes are written, or null. */
  private Journal journal;

  public EGraph(Analysis<D> analysis) {
    this.analysis = Objects.requireNonNull(analysis, "analysis");
  }

  /**
   * Adds a node (its children are canonicalized first) and returns its canonical class: the
   * existing class when an equal node is already present, else a new class.
   *
   * @throws IllegalArgumentException when the operator id is negative or a child is not a class id
   */
  public int add(ENode n) {
    if (n.op < 0) {
      throw new IllegalArgumentException("negative operator id " + n.op);
    }
    for (int c : n.children) {
      checkId(c);
    }
    ENode canon = n.canonical(uf);
    Integer existing = memo.get(canon);
    if (existing != null) {
      return uf.find(existing);
    }
    D data = analysis.make(this, canon);
    int id = uf.makeSet();
    version++;
    stamp++;
    classes.add(new EClass<>(id, canon, data));
    touched.set(id);
    classCount++;
    memo.put(canon, id);
    int[] ch = canon.children;
    for (int i = 0; i < ch.length; i++) {
      if (!occursBefore(ch, i)) {
        classes.get(ch[i]).addParent(canon, id);
      }
    }
    indexOp(canon.op, id);
    analysis.modify(this, id);
    if (journal != null) {
      journal.added(canon, id, data);
    }
    return uf.find(id);
  }

  /**
   * Writes every later change of this e-graph into {@code j}; only on an e-graph that has had none.
   *
   * @throws IllegalStateException when the e-graph already has classes or a journal
   */
  public void keepJournal(Journal j) {
    if (uf.size() > 0 || journal != null) {
      throw new IllegalStateException("a journal is kept from an empty e-graph's start");
    }
    journal = Objects.requireNonNull(j, "journal");
  }

  /** The journal of this e-graph's changes, or null when none is kept. */
  public Journal journal() {
    return journal;
  }

  /** The canonical class holding this node (children canonicalized first), or -1 when absent. */
  public int lookup(ENode n) {
    for (int c : n.children) {
      checkId(c);
    }
    Integer id = memo.get(n.canonical(uf));
    return id == null ? -1 : uf.find(id);
  }

  /**
   * Makes two classes equal and merges their facts. Congruence repair is deferred to {@link
   * #rebuild}.
   *
   * @return whether anything changed (false when already equal)
   * @throws AnalysisConflict when the facts contradict; the e-graph is then unchanged
   */
  public boolean union(int a, int b) {
    boolean changed = merge(a, b);
    if (changed && journal != null) {
      journal.united(a, b);
    }
    return changed;
  }

  /** {@link #union} without the journal (which records the calls from outside only). */
  private boolean merge(int a, int b) {
    int ra = find(a);
    int rb = find(b);
    if (ra == rb) {
      return false;
    }
    EClass<D> ca = classes.get(ra);
    EClass<D> cb = classes.get(rb);
    D merged = analysis.merge(ca.data, cb.data);
    EClass<D> keep = ca;
    EClass<D> gone = cb;
    if (cb.weight() > ca.weight() || (cb.weight() == ca.weight() && rb < ra)) {
      keep = cb;
      gone = ca;
    }
    uf.union(keep.id, gone.id);
    touched.set(keep.id);
    version++;
    stamp++;
    classes.set(gone.id, null);
    classCount--;
    dirty = true;

    pendingNodes.addAll(gone.parentNodes);
    pendingClasses.addAll(gone.parentClasses);
    if (!Objects.equals(merged, keep.data)) {
      analysisNodes.addAll(keep.parentNodes);
      analysisClasses.addAll(keep.parentClasses);
    }
    if (!Objects.equals(merged, gone.data)) {
      analysisNodes.addAll(gone.parentNodes);
      analysisClasses.addAll(gone.parentClasses);
    }
    for (ENode n : gone.nodes) {
      indexOp(n.op, keep.id);
    }
    keep.nodes.addAll(gone.nodes);
    keep.nodesChanged();
    keep.parentNodes.addAll(gone.parentNodes);
    keep.parentClasses.addAll(gone.parentClasses);
    keep.data = merged;
    analysis.modify(this, keep.id);
    return true;
  }

  /** The canonical id of the class {@code id} belongs to. */
  public int find(int id) {
    checkId(id);
    return uf.find(id);
  }

  /**
   * Restores the invariants after unions: congruent nodes share a class, the hashcons maps every
   * canonical node to its class and holds nothing else, class node lists are canonical and free of
   * duplicates, parent lists and the operator index are exact, and every fact is repaired upward
   * through the parents. Cheap when the graph is already clean.
   *
   * @throws AnalysisConflict when repair merges classes with contradictory facts; the e-graph is
   *     then inconsistent and must be discarded
   */
  public void rebuild() {
    if (journal != null && !isClean()) {
      journal.rebuilt();
    }
    while (!isClean()) {
      processWorklists();
      dirty = false;
      rebuildIndexes();
    }
  }

  /** Whether the invariants hold (no union since the last {@link #rebuild}). */
  public boolean isClean() {
    return !dirty && pendingNodes.isEmpty() && analysisNodes.isEmpty();
  }

  /** The fact of {@code classId}'s class. */
  public D data(int classId) {
    return classes.get(find(classId)).data;
  }

  /**
   * The nodes of {@code classId}'s class, in insertion order (canonical when clean). A live view:
   * read it before changing the e-graph.
   */
  public List<ENode> nodes(int classId) {
    return Collections.unmodifiableList(classes.get(find(classId)).nodes);
  }

  /**
   * The nodes of {@code classId}'s class with operator {@code op}, in insertion order (canonical
   * when clean). Read it before changing the e-graph.
   */
  public NodeRange nodes(int classId, int op) {
    return classes.get(find(classId)).withOp(op);
  }

  /** Whether {@code classId}'s class holds a node with operator {@code op}. */
  public boolean holds(int classId, int op) {
    NodeRange r = nodes(classId, op);
    return r.to() > r.from();
  }

  /** The number of classes (canonical ids). */
  public int classCount() {
    return classCount;
  }

  /** The number of distinct nodes (the hashcons size); exact when clean. */
  public int nodeCount() {
    return memo.size();
  }

  /** The canonical class ids, ascending. */
  public int[] classIds() {
    int n = 0;
    for (EClass<D> c : classes) {
      n += c != null ? 1 : 0;
    }
    int[] out = new int[n];
    n = 0;
    for (int i = 0; i < classes.size(); i++) {
      if (classes.get(i) != null) {
        out[n++] = i;
      }
    }
    return out;
  }

  /** One more than the largest class id ever made: the length of an array indexed by class id. */
  public int classIdBound() {
    return classes.size();
  }

  /** The canonical classes holding a node with operator {@code op}, ascending; exact when clean. */
  public int[] classesWithOp(int op) {
    return op >= 0 && op < byOp.size() ? byOp.get(op).toArray() : ENode.NO_CHILDREN;
  }

  /** A node and the canonical class that holds it. */
  public record Held(int cls, ENode node) {}

  /**
   * Every node with operator {@code op}, each with its canonical class, classes ascending; exact
   * when clean.
   */
  public List<Held> nodesWithOp(int op) {
    List<Held> out = new ArrayList<>();
    for (int c : classesWithOp(op)) {
      int root = find(c);
      for (ENode n : classNodes(root)) {
        if (n.op() == op) {
          out.add(new Held(root, n));
        }
      }
    }
    return out;
  }

  /** The live node list of a canonical class; not to be modified. */
  List<ENode> classNodes(int canonicalId) {
    return classes.get(canonicalId).nodes;
  }

  /** The nodes that have {@code classId}'s class as a child (exact when clean). */
  List<ENode> parents(int classId) {
    return Collections.unmodifiableList(classes.get(find(classId)).parentNodes);
  }

  /**
   * The canonical classes that are new, or gained nodes (by a union) or a new fact since the last
   * call; starts the next period of changes. Requires a clean graph.
   */
  public BitSet takeTouched() {
    if (journal != null && !touched.isEmpty()) {
      journal.tookTouched();
    }
    BitSet out = new BitSet();
    for (int i = touched.nextSetBit(0); i >= 0; i = touched.nextSetBit(i + 1)) {
      out.set(uf.find(i));
    }
    touched.clear();
    return out;
  }

  /** Marks every class as changed: the next {@link #takeTouched} returns them all. */
  public void touchAll() {
    if (journal != null) {
      journal.touchedAll();
    }
    touched.set(0, uf.size());
  }

  /**
   * The canonical classes of {@code from} and those at most {@code levels} child steps below them.
   * Requires a clean graph.
   */
  public BitSet below(BitSet from, int levels) {
    return levels == 0 ? from : spread(from, levels, false);
  }

  /**
   * The canonical classes of {@code from} and those at most {@code levels} parent steps above them.
   * Requires a clean graph.
   */
  public BitSet above(BitSet from, int levels) {
    return spread(from, levels, true);
  }

  /** Breadth-first from {@code from}, up through parents or down through children. */
  private BitSet spread(BitSet from, int levels, boolean up) {
    BitSet out = (BitSet) from.clone();
    IntList frontier = new IntList(Math.max(2, from.cardinality()));
    for (int c = from.nextSetBit(0); c >= 0; c = from.nextSetBit(c + 1)) {
      frontier.add(c);
    }
    IntList next = new IntList(frontier.size());
    for (int step = 0; step < levels && !frontier.isEmpty(); step++) {
      for (int k = 0; k < frontier.size(); k++) {
        EClass<D> c = classes.get(frontier.get(k));
        if (up) {
          for (int j = 0; j < c.parentClasses.size(); j++) {
            visit(uf.find(c.parentClasses.get(j)), out, next);
          }
        } else {
          for (ENode n : c.nodes) {
            for (int child : n.children) {
              visit(uf.find(child), out, next);
            }
          }
        }
      }
      IntList done = frontier;
      frontier = next;
      next = done;
      next.clear();
    }
    return out;
  }

  private static void visit(int c, BitSet seen, IntList next) {
    if (!seen.get(c)) {
      seen.set(c);
      next.add(c);
    }
  }

  /**
   * After an {@link EGraphImage} put back the class store, the index and the union-find: sets the
   * counters and the changed classes it holds, and empties the worklists (the image is clean).
   */
  void restored(int classCount, long version, BitSet touched) {
    pendingNodes.clear();
    pendingClasses.clear();
    analysisNodes.clear();
    analysisClasses.clear();
    this.classCount = classCount;
    dirty = false;
    this.version = version;
    this.stamp++;
    this.touched.clear();
    this.touched.or(touched);
  }

  /** Changes with every new class and every union. */
  long version() {
    return version;
  }

  /**
   * Changes whenever what a class holds may have changed (a new class, a union, a restored image),
   * and never returns to an earlier value: facts derived from the e-graph may be kept while it
   * stays the same.
   */
  public long stamp() {
    return stamp;
  }

  /** The number of ids ever handed out (absorbed ones included). */
  int idCount() {
    return uf.size();
  }

  /** One line per class: {@code c3 = fact: (add c1 c2) (mul[2] c0)}. */
  public String dump(IntFunction<String> opName) {
    StringBuilder sb = new StringBuilder();
    for (EClass<D> c : classes) {
      if (c == null) {
        continue;
      }
      sb.append('c').append(c.id).append(" = ").append(c.data).append(':');
      for (ENode n : c.nodes) {
        sb.append(' ').append(n.render(opName));
      }
      sb.append('\n');
    }
    return sb.toString();
  }

  @Override
  public String toString() {
    return "EGraph[" + classCount + " classes, " + memo.size() + " nodes]";
  }

  /** Runs the congruence and analysis worklists until both are empty. */
  private void processWorklists() {
    while (!pendingNodes.isEmpty() || !analysisNodes.isEmpty()) {
      // unions below append to the list being walked; the index loop picks them up
      for (int i = 0; i < pendingNodes.size(); i++) {
        ENode canon = pendingNodes.get(i).canonical(uf);
        int root = uf.find(pendingClasses.get(i));
        Integer prev = memo.put(canon, root);
        if (prev != null) {
          merge(prev, root);
        }
      }
      pendingNodes.clear();
      pendingClasses.clear();

      for (int i = 0; i < analysisNodes.size(); i++) {
        ENode canon = analysisNodes.get(i).canonical(uf);
        int root = uf.find(analysisClasses.get(i));
        EClass<D> c = classes.get(root);
        D merged = analysis.merge(c.data, analysis.make(this, canon));
        if (!Objects.equals(merged, c.data)) {
          c.data = merged;
          touched.set(root);
          analysisNodes.addAll(c.parentNodes);
          analysisClasses.addAll(c.parentClasses);
          analysis.modify(this, root);
        }
      }
      analysisNodes.clear();
      analysisClasses.clear();
    }
  }

  /**
   * Recomputes the hashcons, the class node lists, the parent lists and the operator index from the
   * canonical classes. Unions any congruence the worklist left behind (which makes the graph dirty
   * again, so {@link #rebuild} loops).
   */
  private void rebuildIndexes() {
    memo.clear();
    for (IntList l : byOp) {
      l.clear();
    }
    IntList missed = new IntList(0);
    ArrayList<ENode> kept = new ArrayList<>();
    for (EClass<D> c : classes) {
      if (c == null) {
        continue;
      }
      c.parentNodes.clear();
      c.parentClasses.clear();
      kept.clear();
      for (ENode n : c.nodes) {
        ENode canon = n.canonical(uf);
        Integer prev = memo.putIfAbsent(canon, c.id);
        if (prev == null) {
          kept.add(canon);
          indexOp(canon.op, c.id);
        } else if (prev != c.id) {
          missed.add(prev);
          missed.add(c.id);
        }
      }
      if (!sameNodes(c.nodes, kept)) {
        c.nodes.clear();
        c.nodes.addAll(kept);
        c.nodesChanged();
      }
    }
    for (EClass<D> c : classes) {
      if (c == null) {
        continue;
      }
      for (ENode n : c.nodes) {
        int[] ch = n.children;
        for (int i = 0; i < ch.length; i++) {
          if (!occursBefore(ch, i)) {
            classes.get(ch[i]).addParent(n, c.id);
          }
        }
      }
    }
    for (int i = 0; i < missed.size(); i += 2) {
      merge(missed.get(i), missed.get(i + 1));
    }
  }

  private void indexOp(int op, int classId) {
    while (byOp.size() <= op) {
      byOp.add(new IntList(2));
    }
    IntList l = byOp.get(op);
    if (l.isEmpty() || l.last() != classId) {
      l.add(classId);
    }
  }

  private void checkId(int id) {
    if (id < 0 || id >= uf.size()) {
      throw new IllegalArgumentException("no e-class with id " + id);
    }
  }

  private static boolean sameNodes(List<ENode> a, List<ENode> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (a.get(i) != b.get(i)) {
        return false;
      }
    }
    return true;
  }

  private static boolean occursBefore(int[] a, int i) {
    for (int j = 0; j < i; j++) {
      if (a[j] == a[i]) {
        return true;
      }
    }
    return false;
  }
}
