package dev.entangle.draft;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.entangle.graph.JsonFiles;
import java.io.PrintWriter;

/**
 * A draft as a relation file (docs/formats.md, Relation files) that says what it is: every entry
 * carries its {@code _confidence} and a {@code note}, the file a {@code _draft} remark, and the
 * inputs it could not relate are listed under {@code _undecided} (the relation reader ignores
 * remarks). Also the same on screen.
 */
public final class DraftWriter {
  private static final ObjectMapper MAPPER = JsonFiles.mapper();

  private DraftWriter() {}

  /** The relation file. */
  public static ObjectNode toJson(Draft d, String gsFile, String gdFile) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("format", "entangle-relation/1");
    root.put(
        "_draft",
        "drafted by entangle draft-relation from "
            + gsFile
            + " and "
            + gdFile
            + ": read every entry (its _confidence and note) before checking with it; the G_s"
            + " inputs under _undecided have no entry yet.");
    ArrayNode rel = root.putArray("relations");
    for (Proposal p : d.proposals()) {
      ObjectNode o = rel.addObject();
      o.put("gs", p.gs());
      Layout l = p.layout();
      if (l instanceof Layout.Replicate r) {
        o.put("replicate", true);
        as(o, p.gs(), r.gdName());
      } else if (l instanceof Layout.Shard s) {
        o.put("shard", s.dim());
        as(o, p.gs(), s.gdName());
      } else if (l instanceof Layout.Blocks b) {
        o.put("gd", b.expression());
      } else {
        o.put("gd", ((Layout.Expression) l).gd());
      }
      o.put("_confidence", p.confidence().text());
      o.put("note", p.note());
    }
    if (!d.undecided().isEmpty()) {
      ArrayNode un = root.putArray("_undecided");
      for (Undecided u : d.undecided()) {
        ObjectNode o = un.addObject();
        o.put("gs", u.gs());
        o.put("type", u.type());
        o.put("why", u.why());
        ArrayNode c = o.putArray("candidates");
        u.candidates().forEach(c::add);
      }
    }
    if (!d.unrelatedGd().isEmpty()) {
      ArrayNode gd = root.putArray("_gd_inputs_not_used");
      d.unrelatedGd().forEach(gd::add);
    }
    return root;
  }

  private static void as(ObjectNode o, String gs, String gdName) {
    if (!gdName.equals(gs)) {
      o.put("as", gdName);
    }
  }

  /** The draft on screen: one line per entry, then what could not be decided. */
  public static void print(Draft d, PrintWriter out) {
    int w = 4;
    for (Proposal p : d.proposals()) {
      w = Math.max(w, p.gs().length());
    }
    out.println(
        "drafted " + d.proposals().size() + " entries (" + d.worldSize() + " ranks); read them:");
    for (Proposal p : d.proposals()) {
      out.printf("  %-6s  %-" + w + "s  %s%n", p.confidence().text(), p.gs(), layout(p.layout()));
    }
    if (!d.undecided().isEmpty()) {
      out.println("could not decide (" + d.undecided().size() + "; no entry written for these):");
      for (Undecided u : d.undecided()) {
        out.println("  " + u.gs() + " " + u.type() + ": " + u.why());
        for (String c : u.candidates()) {
          out.println("      candidate: " + c);
        }
      }
    }
    if (!d.unrelatedGd().isEmpty()) {
      out.println("G_d inputs no entry uses: " + String.join(", ", d.unrelatedGd()));
    }
    out.flush();
  }

  private static String layout(Layout l) {
    if (l instanceof Layout.Replicate) {
      return "replicate";
    }
    if (l instanceof Layout.Shard s) {
      return "shard " + s.dim();
    }
    return l instanceof Layout.Blocks b ? b.expression() : ((Layout.Expression) l).gd();
  }
}
