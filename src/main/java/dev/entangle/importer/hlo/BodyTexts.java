package dev.entangle.importer.hlo;

import dev.entangle.importer.SourceFile;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * The canonical texts of the computations that instructions name in attributes ({@code to_apply},
 * {@code calls}, {@code comparator}, ...): each instruction by position, no names or metadata, so
 * that two calls are the same function exactly when their bodies are the same. A body that calls
 * itself, or reads the rank ({@code partition-id}, {@code replica-id}, a collective) or anything
 * the checker refuses, is an error at the instruction naming it: its text would be the same on
 * every rank while its function is not. Texts are computed once per computation; a nested body
 * longer than {@value #MAX_INLINE} characters appears as its digest.
 */
final class BodyTexts {
  /** A nested body's text up to this length appears whole, a longer one as its SHA-256. */
  static final int MAX_INLINE = 4096;

  /** How deep bodies may call bodies. */
  static final int MAX_DEPTH = 64;

  private final SourceFile src;
  private final HloModule module;
  private final Map<String, String> texts = new HashMap<>();
  private final Set<String> open = new HashSet<>();

  BodyTexts(SourceFile src, HloModule module) {
    this.src = src;
    this.module = module;
  }

  /** The computation an attribute value names ({@code %add.3} or {@code add.3}), or null. */
  HloComputation named(String value) {
    String v = value.strip();
    return module.computation(v.startsWith("%") ? v.substring(1) : v);
  }

  /** The canonical text of a computation that {@code at} calls. */
  String text(HloComputation c, HloInstruction at) {
    return text(c, at, 0);
  }

  private String text(HloComputation c, HloInstruction at, int depth) {
    String done = texts.get(c.name());
    if (done != null) {
      return done;
    }
    if (depth > MAX_DEPTH || !open.add(c.name())) {
      throw src.error(
          at.line(),
          "`"
              + at.name()
              + "` calls `"
              + c.name()
              + "`, whose body calls itself or nests more than "
              + MAX_DEPTH
              + " calls deep",
          "XLA computations do not recurse; check that the file is an HLO dump.");
    }
    Map<String, Integer> index = new HashMap<>();
    StringJoiner body = new StringJoiner("; ", "{", "}");
    for (HloInstruction i : c.instructions()) {
      checkPure(i, c, at);
      StringBuilder sb = new StringBuilder();
      sb.append('%').append(index.size()).append(" = ").append(i.type()).append(' ');
      sb.append(i.opcode()).append('(');
      if (i.opcode().equals("constant") || i.opcode().equals("parameter")) {
        sb.append(i.operandText().strip());
      } else {
        StringJoiner ops = new StringJoiner(", ");
        for (String o : i.operands()) {
          ops.add("%" + index.get(o));
        }
        sb.append(ops);
      }
      sb.append(')');
      for (Map.Entry<String, String> a : i.attributes().entrySet()) {
        if (HloNodes.IGNORED_ATTRIBUTES.contains(a.getKey())) {
          continue;
        }
        HloComputation called = named(a.getValue());
        String value = a.getValue();
        if (called != null) {
          String t = text(called, at, depth + 1);
          value = t.length() <= MAX_INLINE ? t : "sha256:" + digest(t);
        }
        sb.append(", ").append(a.getKey()).append('=').append(value);
      }
      index.put(i.name(), index.size());
      body.add(sb);
    }
    open.remove(c.name());
    String out = body.toString();
    texts.put(c.name(), out);
    return out;
  }

  /** A body instruction whose value depends on the rank or that the checker refuses is an error. */
  private void checkPure(HloInstruction i, HloComputation c, HloInstruction at) {
    HloOpcodes.Entry e = HloOpcodes.of(i.opcode());
    String why = null;
    if (e == null) {
      why = "`" + i.opcode() + "`, which is not an XLA opcode";
    } else if (e.status() == HloOpcodes.Status.REFUSED) {
      why = "`" + i.opcode() + "`: " + e.reason();
    } else if (i.opcode().equals("partition-id")
        || i.opcode().equals("replica-id")
        || HloCollectives.isCollective(i.opcode())
        || i.opcode().endsWith("-done")) {
      why = "`" + i.opcode() + "`, whose value differs from rank to rank";
    }
    if (why != null) {
      throw src.error(
          at.line(),
          "`"
              + at.name()
              + "` calls `"
              + c.name()
              + "`, whose instruction `"
              + i.name()
              + "` (line "
              + i.line()
              + ") is "
              + why,
          "The importer compares called computations by their text, which must mean the same on"
              + " every rank.");
    }
  }

  static String digest(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
