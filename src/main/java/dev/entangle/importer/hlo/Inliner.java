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
 * opt-barrier} and {@code domain} are their operand.
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
  private final List<HloInstruction> out = new ArrayList<>();

  private Inliner(SourceFile src, HloModule module) {
    this.src = src;
    this.module = module;
  }

  /**
   * The entry computation inlined.
   *
   * @param instructions its instructions, calls inlined, in an order where operands come first
   * @param root the name of the value it returns
   */
  record Flat(List<HloInstruction> instructions, String root) {}

  /** The entry computation with its calls inlined. */
  static Flat flatten(SourceFile src, HloModule module) {
    Inliner in = new Inliner(src, module);
    String root = in.inline(module.entry(), "", Map.of(), null, true, 0);
    return new Flat(in.out, root);
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
      String callee = calledBody(i);
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
      if (out.size() >= MAX_INSTRUCTIONS) {
        throw src.error(
            i.line(),
            "inlining calls and fusions gives more than " + MAX_INSTRUCTIONS + " instructions",
            "A program this large cannot be checked; check that calls do not nest needlessly.");
      }
      out.add(i.renamed(name, operands, isRoot && entryRoot));
    }
    return rename.get(c.root().name());
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
