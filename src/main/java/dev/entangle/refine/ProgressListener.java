package dev.entangle.refine;

/** Hears about each G_s operator as the check processes it (for --verbose and progress bars). */
public interface ProgressListener {
  /**
   * @param index position among the operators to process (from 0)
   * @param total how many operators will be processed
   * @param operator the G_s node name
   * @param detail one line: target, e-graph size, explored G_d values, result
   */
  void operatorDone(int index, int total, String operator, String detail);

  ProgressListener NONE = (i, t, o, d) -> {};
}
