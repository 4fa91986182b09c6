package dev.entangle.draft;

import java.util.List;

/**
 * A G_s input the draft could not relate.
 *
 * @param gs its name (its tag when it has one)
 * @param type its type
 * @param why what the graphs do not say
 * @param candidates entries that would fit its type, for the user to choose from (may be empty)
 */
public record Undecided(String gs, String type, String why, List<String> candidates) {
  public Undecided {
    candidates = List.copyOf(candidates);
  }
}
