package dev.entangle.draft;

/**
 * A drafted relation entry.
 *
 * @param gs the G_s input, as the entry names it (its tag when it has one)
 * @param layout how it lies across the ranks
 * @param confidence how sure the draft is
 * @param note why, in a sentence
 */
public record Proposal(String gs, Layout layout, Confidence confidence, String note) {}
