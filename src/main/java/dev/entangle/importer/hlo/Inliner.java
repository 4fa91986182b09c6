package dev.entangle.importer.hlo;

import dev.entangle.importer.SourceFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The entry computation as one list of instructions, with {@code fusion} and {@code call}
 * instructions replaced by the bodies they call: a body's parameters read the call's operands, its
 * root takes the call's name and its other instructions are named {@code CALL/NAME}; {@code
 * opt-barrier} and {@code domain} are their operand; a {@code conditional} whose branch is known on
 * this rank is that branch.
 */
final class Inliner {
  /** How many instructions the inlined entry computation may have. */
  static final int MAX_INSTRUCTIONS = 2_000_000;

  /**
   * Instructions whose value is their operand's: {@code opt-barrier} (which only keeps XLA from
   * moving code across it) and {@code domain} (a marker of sharding domains).
   */
  private static final Set<String> IDENTITIES = Set.of("opt-barrier", "domain");

  private final SourceFile src;
  private final HloModule module;
  private final Consumer consumer;
  private int count;

  private Inliner(SourceFile src, HloModule module, Consumer consumer) {
    this.src = src;
    this.module = module;
    this.consumer = consumer;
  }

  /** Receives the inlined instructions in order and tells the scalars known so far. */
  interface Consumer {
    /** The next instruction (its operands came before). */
    void accept(HloInstruction instruction);

    /** The value of an instruction received already, when it is a scalar known on this rank. */
    Double knownScalar(String name);
  }

  /**
   * Inlines the entry computation, handing each instruction to {@code consumer}; returns the name
   * of the value it returns.
   */
  static String flatten(SourceFile src, HloModule module, Consumer consumer) {
    return new Inliner(src, module, consumer).inline(module.entry(), "", Map.of(), null, true, 0);
  }

  /**
   * Inlines a computation; returns the name its root's value has.
   *
   * @param rootName the name its root takes (a call's), or null for the entry
   * @param entryRoot whether its root is the entry computation's root (marked ROOT)
   */
  private String inline(
      HloComputation c,
      String prefix,
      Map<String, String> params,
      String rootName,
      boolean entryRoot,
      int depth) {
    if (depth > 64) {
      throw src.error(
          c.line(), "calls nest more than 64 deep at `" + c.name() + "`", HloParser.ADVICE);
    }
    Map<String, String> rename = new HashMap<>(params);
    for (HloInstruction i : c.instructions()) {
      boolean isRoot = i == c.root();
      String name = isRoot && rootName != null ? rootName : prefix + i.name();
      if (i.opcode().equals("parameter") && rootName != null) {
        long k = i.parameterNumber();
        String arg = params.get("#" + k);
        if (arg == null) {
          throw src.error(
              i.line(),
              "`" + c.name() + "` reads parameter " + k + ", which its caller does not pass",
              HloParser.ADVICE);
        }
        rename.put(i.name(), arg);
        if (isRoot) {
          return arg;
        }
        continue;
      }
      List<String> operands = new ArrayList<>();
      for (String o : i.operands()) {
        operands.add(rename.getOrDefault(o, o));
      }
      if (IDENTITIES.contains(i.opcode()) && operands.size() == 1) {
        rename.put(i.name(), operands.get(0));
        continue;
      }
      String callee = i.opcode().equals("conditional") ? branch(i, operands) : calledBody(i);
      if (i.opcode().equals("conditional")) {
        operands = operands.subList(1, operands.size());
        int b = takenBranch;
        operands = b < operands.size() ? List.of(operands.get(b)) : List.of();
      }
      if (callee != null) {
        HloComputation body = module.computation(callee);
        if (body == null) {
          throw src.error(
              i.line(),
              "`" + i.name() + "` calls `" + callee + "`, which the module does not define",
              HloParser.ADVICE);
        }
        Map<String, String> args = new HashMap<>();
        for (int k = 0; k < operands.size(); k++) {
          args.put("#" + k, operands.get(k));
        }
        rename.put(i.name(), inline(body, name + "/", args, name, entryRoot && isRoot, depth + 1));
        continue;
      }
      rename.put(i.name(), name);
      if (++count > MAX_INSTRUCTIONS) {
        throw src.error(
            i.line(),
            "inlining calls and fusions gives more than " + MAX_INSTRUCTIONS + " instructions",
            "A program this large cannot be checked; check that calls do not nest needlessly.");
      }
      consumer.accept(i.renamed(name, operands, isRoot && entryRoot));
    }
    return rename.get(c.root().name());
  }

  private int takenBranch;

  /**
   * The branch a {@code conditional} takes on this rank: its first operand (a {@code pred}, or an
   * index where one out of range takes the last branch, as in XLA) must be known from literals and
   * the rank; sets {@link #takenBranch} to the branch's position.
   */
  private String branch(HloInstruction i, List<String> operands) {
    List<String> branches = new ArrayList<>();
    String t = i.attribute("true_computation");
    String f = i.attribute("false_computation");
    String list = i.attribute("branch_computations");
    if (t != null && f != null) {
      branches.add(t);
      branches.add(f);
    } else if (list != null && list.startsWith("{") && list.endsWith("}")) {
      for (String b : HloAttributes.splitTopLevel(list.substring(1, list.length() - 1))) {
        if (!b.isBlank()) {
          branches.add(b.strip());
        }
      }
    }
    if (branches.isEmpty() || operands.size() != branches.size() + 1) {
      throw src.error(
          i.line(),
          "`"
              + i.name()
              + "` names "
              + branches.size()
              + " branches for "
              + Math.max(0, operands.size() - 1)
              + " branch operands",
          HloParser.ADVICE);
    }
    Double k = operands.isEmpty() ? null : consumer.knownScalar(operands.get(0));
    if (k == null) {
      throw src.error(
          i.line(),
          "the branch `" + i.name() + "` takes is not known from literals and the rank",
          "The checker has no branches: it follows a conditional only where each rank's branch"
              + " is a constant of that rank.");
    }
    boolean pred = t != null && f != null;
    int b =
        pred
            ? (k != 0 ? 0 : 1)
            : (k < 0 || k >= branches.size() ? branches.size() - 1 : (int) (double) k);
    takenBranch = b;
    String name = branches.get(b);
    return name.startsWith("%") ? name.substring(1) : name;
  }

  /** The computation a {@code fusion} or {@code call} runs, else null. */
  private static String calledBody(HloInstruction i) {
    String v =
        switch (i.opcode()) {
          case "fusion" -> i.attribute("calls");
          case "call" -> i.attribute("to_apply");
          default -> null;
        };
    return v == null ? null : v.startsWith("%") ? v.substring(1) : v;
  }
}
