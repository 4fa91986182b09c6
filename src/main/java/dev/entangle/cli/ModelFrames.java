package dev.entangle.cli;

import dev.entangle.core.CoreOp;
import dev.entangle.core.CoreProgram;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Which frame of an operator's stack trace a report points at: the innermost frame of the model's
 * own code that is not a library helper. A frame is a library frame when its file is installed
 * (torch, site-packages, {@code <...>}), and a shared helper when the graph's operators reach it
 * from two or more distinct call sites (the frame directly outside it differs): a {@code
 * Linear.forward} called by both projections of an MLP, a generic {@code hlo.py} builder. A module
 * reused by every layer is reached from the same call site each time, so it is not a helper.
 */
final class ModelFrames {
  private final Map<String, Set<String>> callSites;

  private ModelFrames(Map<String, Set<String>> callSites) {
    this.callSites = callSites;
  }

  /**
   * The call sites of every frame of the programs' recorded stack traces (G_s and G_d run the same
   * model code, so both tell which of its functions are helpers).
   */
  static ModelFrames of(CoreProgram... programs) {
    Map<String, Set<String>> sites = new HashMap<>();
    Set<String> seen = new HashSet<>();
    for (CoreOp op : Arrays.stream(programs).flatMap(p -> p.ops().stream()).toList()) {
      String trace = op.stackTrace();
      if (trace == null || !seen.add(trace)) {
        continue;
      }
      List<SourceFrames.Frame> frames = lines(SourceFrames.of(trace));
      for (int i = 0; i < frames.size(); i++) {
        String caller = i == 0 ? "" : frames.get(i - 1).where();
        sites.computeIfAbsent(frames.get(i).where(), k -> new HashSet<>()).add(caller);
      }
    }
    return new ModelFrames(sites);
  }

  /** Whether the program's operators reach this frame from two or more call sites. */
  boolean sharedHelper(SourceFrames.Frame f) {
    Set<String> sites = callSites.get(f.where());
    return sites != null && sites.size() >= 2;
  }

  /**
   * The frame to point at: the call of the outermost shared helper (the model's own frame just
   * outside it, as code inside a helper is the helper's too); without a helper, the innermost frame
   * of the model's own code; else the innermost; null for none.
   */
  SourceFrames.Frame pick(List<SourceFrames.Frame> trace) {
    List<SourceFrames.Frame> frames = lines(trace);
    for (int i = 1; i < frames.size(); i++) {
      SourceFrames.Frame f = frames.get(i);
      if (!SourceFrames.installed(f.path()) && sharedHelper(f)) {
        for (int j = i - 1; j >= 0; j--) {
          if (!SourceFrames.installed(frames.get(j).path())) {
            return frames.get(j);
          }
        }
      }
    }
    return SourceFrames.primary(frames);
  }

  /**
   * The frames with each run of frames at one line kept once, the outermost: a generator
   * expression, comprehension or lambda runs in a frame of its own at its caller's line, which is
   * one call site, not a second.
   */
  private static List<SourceFrames.Frame> lines(List<SourceFrames.Frame> frames) {
    List<SourceFrames.Frame> out = new ArrayList<>(frames.size());
    for (SourceFrames.Frame f : frames) {
      if (out.isEmpty() || !out.get(out.size() - 1).where().equals(f.where())) {
        out.add(f);
      }
    }
    return out;
  }

  /** {@link #pick} of a recorded stack trace, or null when it has no frame. */
  SourceFrames.Frame pick(String stackTrace) {
    return pick(SourceFrames.of(stackTrace));
  }
}
