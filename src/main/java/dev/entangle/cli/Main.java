package dev.entangle.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/** The {@code entangle} command. Only {@link #main} exits the process. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    System.exit(run(args, out, err));
  }

  /** Runs the command line with the given streams and returns the exit code. */
  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    if (args.length > 0 && args[0].equals("check")) {
      CheckLemmas.startShipped();
    }
    CommandLine cl = EntangleCommand.commandLine(args);
    cl.setOut(out);
    cl.setErr(err);
    ErrorHandling.install(cl, args);
    int code;
    try {
      code = cl.execute(args);
    } catch (OutOfMemoryError e) {
      code = ResourceErrors.report(e, err, args);
    } catch (StackOverflowError e) {
      code = ResourceErrors.report(e, err, args);
    }
    out.flush();
    err.flush();
    return code;
  }
}
