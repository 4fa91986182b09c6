package dev.entangle.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;

/**
 * The {@code --json} report (docs/formats.md, JSON report) and the {@code --write-relation} file.
 */
final class JsonReport {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private JsonReport() {}

  static ObjectNode toJson(Report r) {
    ObjectNode root = JSON.objectNode();
    root.put("verdict", r.verdict().json());
    root.set("output_relation", relation(r));
    ArrayNode nc = root.putArray("not_checked");
    r.notChecked().forEach(nc::add);
    if (r.failure() != null) {
      Report.FailureText f = r.failure();
      ObjectNode fo = root.putObject("failure");
      fo.put("operator", f.operator());
      fo.put("target", f.target());
      if (f.stackTrace() != null) {
        fo.put("stack_trace", f.stackTrace());
      }
      if (f.source() != null) {
        fo.set("source", frame(f.source()));
      }
      ArrayNode gdl = fo.putArray("gd_locations");
      for (GdLocations.Location l : f.gdLocations()) {
        ObjectNode lo = frame(l.frame());
        ArrayNode tensors = lo.putArray("tensors");
        l.tensors().forEach(tensors::add);
        lo.put("target", l.target());
        lo.put("stack_trace", l.stackTrace());
        gdl.add(lo);
      }
      fo.put("reason", f.reason());
      if (f.expected() != null) {
        fo.put("expected", f.expected());
      }
      ArrayNode ins = fo.putArray("inputs");
      for (Report.Input i : f.inputs()) {
        ObjectNode io = ins.addObject();
        io.put("name", i.name());
        ArrayNode gd = io.putArray("gd");
        i.gd().forEach(gd::add);
        if (i.constant()) {
          io.put("constant", true);
        }
      }
      ArrayNode ex = fo.putArray("explored");
      f.explored().forEach(ex::add);
      numbers(fo, f.numbers());
    }
    if (!r.assumed().isEmpty()) {
      ArrayNode assumed = root.putArray("assumed");
      for (Report.Entry e : r.assumed()) {
        ObjectNode o = assumed.addObject();
        o.put("gs", e.gs());
        o.put("gd", e.gd());
      }
    }
    ObjectNode st = root.putObject("stats");
    st.put("gs_operators", r.stats().gsOperators());
    st.put("gd_operators", r.stats().gdOperators());
    st.put("seconds", Math.round(r.stats().seconds() * 1000) / 1000.0);
    ObjectNode la = st.putObject("lemma_applications");
    r.stats().lemmaApplications().forEach(la::put);
    return root;
  }

  /**
   * The failure's numbers: {@code witness}, {@code candidate}, {@code lemma_skeleton}, {@code
   * numbers_not_run}.
   */
  private static void numbers(ObjectNode fo, Report.NumbersText n) {
    if (n == null) {
      return;
    }
    if (n.witness() != null) {
      Report.WitnessText w = n.witness();
      ObjectNode wo = fo.putObject("witness");
      wo.put("seed", w.seed());
      longs(wo.putArray("shape"), w.shape());
      if (w.closest() != null) {
        wo.put("closest", w.closest());
        longs(wo.putArray("index"), w.index());
        wo.put("gs", w.gs());
        wo.put("gd", w.gd());
        wo.put("max_abs_difference", w.maxAbs());
        wo.put("max_relative_difference", w.maxRelative());
        wo.put("differing", w.differing());
      }
      if (w.note() != null) {
        wo.put("note", w.note());
      }
    }
    if (n.candidate() != null) {
      ObjectNode co = fo.putObject("candidate");
      co.put("gd", n.candidate().expr());
      co.put("draws", n.candidate().draws());
      co.put("seed", n.candidate().seed());
    }
    if (n.lemmaSkeleton() != null) {
      fo.put("lemma_skeleton", n.lemmaSkeleton());
    }
    if (n.notRun() != null) {
      fo.put("numbers_not_run", n.notRun());
    }
  }

  /** {@code {"at": "PATH:LINE", "path", "line", "code"}}. */
  private static ObjectNode frame(SourceFrames.Frame f) {
    ObjectNode o = JSON.objectNode();
    o.put("at", f.where());
    o.put("path", f.path());
    o.put("line", f.line());
    if (f.code() != null) {
      o.put("code", f.code());
    }
    return o;
  }

  private static void longs(ArrayNode a, long[] values) {
    if (values != null) {
      for (long v : values) {
        a.add(v);
      }
    }
  }

  private static ArrayNode relation(Report r) {
    ArrayNode rel = JSON.arrayNode();
    for (Report.Entry e : r.outputRelation()) {
      ObjectNode o = rel.addObject();
      o.put("gs", e.gs());
      o.put("gd", e.gd());
    }
    return rel;
  }

  static void write(Report r, Path file) {
    OutputFiles.writeReport(toJson(r), file);
  }

  /** A relation file whose relations are the output relation. */
  static void writeRelation(Report r, Path file) {
    ObjectNode root = JSON.objectNode();
    root.put("format", "entangle-relation/1");
    root.set("relations", relation(r));
    OutputFiles.writeReport(root, file);
  }
}
