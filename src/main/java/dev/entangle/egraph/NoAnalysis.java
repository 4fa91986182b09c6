package dev.entangle.egraph;

/** The analysis whose facts are all null. */
final class NoAnalysis implements Analysis<Void> {
  static final NoAnalysis INSTANCE = new NoAnalysis();

  private NoAnalysis() {}

  @Override
  public Void make(EGraph<Void> g, ENode n) {
    return null;
  }

  @Override
  public Void merge(Void a, Void b) {
    return null;
  }
}
