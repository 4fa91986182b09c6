package dev.entangle.eval;

/**
 * How much an evaluation may do: work in FLOP-like units (one unit per element written or
 * multiply-add performed) and elements held (the values an evaluation keeps). A step that does not
 * fit throws {@link BudgetExhausted} naming the step and both figures; from then on the budget
 * stays exhausted, so an evaluation stops rather than skipping silently. Not thread-safe.
 */
public final class WorkBudget {
  /** The default work: a few seconds of kernels. */
  public static final long DEFAULT_WORK = 4_000_000_000L;

  /** The default number of elements held: 1 GiB of doubles. */
  public static final long DEFAULT_ELEMENTS = 1L << 27;

  private final long workLimit;
  private final long elementLimit;
  private long work;
  private long elements;
  private String exhausted;

  public WorkBudget(long workLimit, long elementLimit) {
    if (workLimit < 0 || elementLimit < 0) {
      throw new IllegalArgumentException("a budget is not negative");
    }
    this.workLimit = workLimit;
    this.elementLimit = elementLimit;
  }

  public static WorkBudget defaults() {
    return new WorkBudget(DEFAULT_WORK, DEFAULT_ELEMENTS);
  }

  /** A budget that never runs out (for tests and small terms). */
  public static WorkBudget unlimited() {
    return new WorkBudget(Long.MAX_VALUE, Long.MAX_VALUE);
  }

  /** Spends work on {@code what}, or throws when it does not fit. */
  public void work(long units, String what) {
    check();
    if (units > workLimit - work) {
      exhaust(
          what
              + " needs "
              + units
              + " units of work, but only "
              + (workLimit - work)
              + " of the budget of "
              + workLimit
              + " remain");
    }
    work += units;
  }

  /** Holds {@code count} more elements for {@code what}, or throws when they do not fit. */
  public void hold(long count, String what) {
    check();
    if (count > elementLimit - elements) {
      exhaust(
          what
              + " holds "
              + count
              + " elements, but only "
              + (elementLimit - elements)
              + " of the limit of "
              + elementLimit
              + " remain");
    }
    elements += count;
  }

  /** Gives back elements no longer held. */
  public void release(long count) {
    elements = Math.max(0, elements - count);
  }

  public long workDone() {
    return work;
  }

  public long elementsHeld() {
    return elements;
  }

  /** Why the budget ran out, or null while it has not. */
  public String exhaustedBecause() {
    return exhausted;
  }

  private void check() {
    if (exhausted != null) {
      throw new BudgetExhausted("the evaluation budget is exhausted: " + exhausted);
    }
  }

  private void exhaust(String why) {
    exhausted = why;
    throw new BudgetExhausted("the evaluation budget is exhausted: " + why);
  }
}
