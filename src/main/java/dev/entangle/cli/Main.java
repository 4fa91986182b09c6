package dev.entangle.cli;

/** Placeholder entry point; replaced by the picocli CLI. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.err.println("entangle: not built yet");
    System.exit(2);
  }
}
