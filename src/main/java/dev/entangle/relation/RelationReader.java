package dev.entangle.relation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.entangle.core.IdRange;
import dev.entangle.graph.JsonFiles;
import dev.entangle.util.InputException;
import dev.entangle.util.WrongSlot;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Reads a relation file (docs/formats.md, Relation files), parsing every expression and expanding
 * the sugar: {@code {"gs": N, "shard": D}} becomes {@code concat(r0.N, ..., r{W-1}.N, dim=D)} and
 * {@code {"gs": N, "replicate": true}} one entry {@code rK.N} per rank, with {@code "as": M} naming
 * the G_d tensors M instead of N. Names are not resolved here; see {@link RelationValidator}.
 * Unknown keys are errors, except remarks: {@code comment}, {@code note} and keys starting with
 * {@code _}.
 */
public final class RelationReader {
  static final String FORMAT = "entangle-relation/1";
  private static final Set<String> TOP_KEYS =
      Set.of("format", "relations", "equalities", "outputs", "expect");
  private static final Set<String> ENTRY_KEYS =
      Set.of("gs", "gd", "shard", "replicate", "as", "in_range");

  private final String file;
  private final int worldSize;

  private RelationReader(String file, int worldSize) {
    this.file = file;
    this.worldSize = worldSize;
  }

  /**
   * Reads {@code file}.
   *
   * @param worldSize the number of G_d ranks, for expanding {@code shard} and {@code replicate}
   */
  public static RelationFile read(Path file, int worldSize) {
    if (worldSize < 1) {
      throw new IllegalArgumentException("world size " + worldSize);
    }
    JsonNode root = JsonFiles.read(file, "relation file");
    return new RelationReader(file.toString(), worldSize).relationFile(root);
  }

  private RelationFile relationFile(JsonNode root) {
    if (!root.isObject()) {
      throw error("", "a relation file is a JSON object with \"format\" and \"relations\".");
    }
    if (root.path("format").asText().startsWith("entangle-fx/")
        || root.has("nodes")
        || root.has("ranks")) {
      throw error("", WrongSlot.GRAPH_AS_RELATION);
    }
    checkKeys(root, TOP_KEYS, "");
    JsonNode format = root.get("format");
    if (format == null) {
      throw error(
          "", "missing \"format\"; a relation file starts with \"format\": \"" + FORMAT + "\".");
    }
    if (!format.isTextual() || !format.textValue().equals(FORMAT)) {
      throw error("", "unknown format " + format + "; this version reads \"" + FORMAT + "\" only.");
    }
    List<RelationEntry> relations = new ArrayList<>();
    JsonNode rel = list(root, "relations");
    for (int i = 0; i < rel.size(); i++) {
      entries(rel.get(i), "relations[" + i + "]", relations);
    }
    List<List<Expr>> equalities = new ArrayList<>();
    JsonNode eq = list(root, "equalities");
    for (int i = 0; i < eq.size(); i++) {
      equalities.add(equality(eq.get(i), "equalities[" + i + "]"));
    }
    List<String> outputs = null;
    if (root.hasNonNull("outputs")) {
      outputs = new ArrayList<>();
      JsonNode out = list(root, "outputs");
      for (int i = 0; i < out.size(); i++) {
        JsonNode name = out.get(i);
        if (!name.isTextual() || name.textValue().isEmpty()) {
          throw error(
              "outputs[" + i + "]", "an output is the name of a G_s tensor, not " + name + ".");
        }
        outputs.add(name.textValue());
      }
    }
    List<RelationEntry> expect = new ArrayList<>();
    JsonNode ex = list(root, "expect");
    for (int i = 0; i < ex.size(); i++) {
      entries(ex.get(i), "expect[" + i + "]", expect);
    }
    return new RelationFile(file, relations, equalities, outputs, expect);
  }

  /** The list under {@code key}, or an empty one when absent. */
  private JsonNode list(JsonNode root, String key) {
    JsonNode v = root.get(key);
    if (v == null || v.isNull()) {
      return JsonNodeFactory.instance.arrayNode();
    }
    if (!v.isArray()) {
      throw error("", "\"" + key + "\" must be a list.");
    }
    return v;
  }

  /** One entry of {@code relations} or {@code expect}, with its sugar expanded into {@code out}. */
  private void entries(JsonNode json, String where, List<RelationEntry> out) {
    if (!json.isObject()) {
      throw error(
          where,
          "an entry is an object such as {\"gs\": \"x\", \"gd\": \"r0.x\"}, not " + json + ".");
    }
    checkKeys(json, ENTRY_KEYS, where);
    JsonNode gsJson = json.get("gs");
    if (gsJson == null || !gsJson.isTextual() || gsJson.textValue().isEmpty()) {
      throw error(where, "the entry has no \"gs\"; give the name of the G_s tensor it relates.");
    }
    String gs = gsJson.textValue();
    String at = where + " (gs \"" + gs + "\")";
    int forms =
        (json.has("gd") ? 1 : 0) + (json.has("shard") ? 1 : 0) + (json.has("replicate") ? 1 : 0);
    if (forms != 1) {
      throw error(
          at,
          (forms == 0 ? "the entry has neither" : "the entry has more than one of")
              + " \"gd\", \"shard\" and \"replicate\"; give exactly one: \"gd\": \"EXPR\", \"shard\":"
              + " DIM or \"replicate\": true.");
    }
    String gdName = gdName(json, gs, at);
    IdRange range = range(json, where, at);
    if (json.has("gd")) {
      JsonNode gd = json.get("gd");
      if (!gd.isTextual()) {
        throw error(
            at,
            "\"gd\" must be an expression string such as \"concat(r0.x, r1.x,"
                + " dim=0)\", not "
                + gd
                + ".");
      }
      out.add(new RelationEntry(gs, parse(gd.textValue(), at, "gd expression"), where, range));
    } else if (json.has("shard")) {
      JsonNode dim = json.get("shard");
      if (!dim.isIntegralNumber() || !dim.canConvertToInt()) {
        throw error(
            at,
            "\"shard\" must be the integer dim the ranks' parts are concatenated"
                + " along, not "
                + dim
                + ".");
      }
      List<Expr> parts = new ArrayList<>();
      for (int k = 0; k < worldSize; k++) {
        parts.add(new Expr.Tensor(k, gdName));
      }
      out.add(new RelationEntry(gs, new Expr.Concat(parts, dim.intValue()), where, range));
    } else {
      JsonNode flag = json.get("replicate");
      if (!flag.isBoolean() || !flag.booleanValue()) {
        throw error(
            at,
            "\"replicate\" must be true (every rank holds the whole tensor), not " + flag + ".");
      }
      for (int k = 0; k < worldSize; k++) {
        out.add(new RelationEntry(gs, new Expr.Tensor(k, gdName), where, range));
      }
    }
  }

  /** The entry's {@code "in_range": [lo, hi]}, or null; stated in {@code relations} only. */
  private IdRange range(JsonNode json, String where, String at) {
    JsonNode r = json.get("in_range");
    if (r == null || r.isNull()) {
      return null;
    }
    if (!where.startsWith("relations")) {
      throw error(
          at,
          "\"in_range\" states a fact about an input and goes in \"relations\" entries only,"
              + " not in \"expect\".");
    }
    if (!r.isArray()
        || r.size() != 2
        || !r.get(0).isIntegralNumber()
        || !r.get(1).isIntegralNumber()
        || !r.get(0).canConvertToLong()
        || !r.get(1).canConvertToLong()
        || r.get(1).longValue() <= r.get(0).longValue()) {
      throw error(
          at,
          "\"in_range\" must be two integers [lo, hi] with lo < hi (every element of the tensor"
              + " is at least lo and below hi, as token ids within a vocabulary of hi), not "
              + r
              + ".");
    }
    return new IdRange(r.get(0).longValue(), r.get(1).longValue());
  }

  private String gdName(JsonNode json, String gs, String at) {
    JsonNode as = json.get("as");
    if (as == null) {
      return gs;
    }
    if (json.has("gd")) {
      throw error(
          at,
          "\"as\" applies to \"shard\" and \"replicate\" only; with \"gd\", write the"
              + " G_d names in the expression.");
    }
    if (!as.isTextual() || as.textValue().isEmpty()) {
      throw error(at, "\"as\" must be the G_d tensors' name, not " + as + ".");
    }
    return as.textValue();
  }

  private List<Expr> equality(JsonNode json, String where) {
    if (!json.isArray() || json.size() < 2) {
      throw error(
          where,
          "an equality is a list of at least two G_d expressions known to be"
              + " equal, such as [\"r0.kv\", \"r1.kv\"].");
    }
    List<Expr> members = new ArrayList<>();
    for (int j = 0; j < json.size(); j++) {
      JsonNode m = json.get(j);
      if (!m.isTextual()) {
        throw error(
            where + "[" + j + "]", "an equality member is an expression string, not " + m + ".");
      }
      members.add(parse(m.textValue(), where + "[" + j + "]", "expression"));
    }
    return members;
  }

  private Expr parse(String text, String where, String what) {
    try {
      return ExprParser.parse(text);
    } catch (ParseError e) {
      throw error(
          where,
          "cannot parse the "
              + what
              + " at column "
              + (e.position() + 1)
              + ": "
              + e.reason()
              + " (the syntax is in the README, \"What goes in\"):\n"
              + e.pointer(text));
    }
  }

  private void checkKeys(JsonNode obj, Set<String> known, String where) {
    for (Iterator<String> it = obj.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!known.contains(key) && !isRemark(key)) {
        throw error(
            where,
            "unknown key \""
                + key
                + "\"; the keys here are "
                + String.join(", ", known.stream().sorted().toList())
                + ".");
      }
    }
  }

  /** Keys for people, not for the checker: {@code comment}, {@code note}, {@code _anything}. */
  private static boolean isRemark(String key) {
    return key.equals("comment") || key.equals("note") || key.startsWith("_");
  }

  private InputException error(String where, String problem) {
    return new InputException(file + ": " + (where.isEmpty() ? "" : where + ": ") + problem);
  }
}
