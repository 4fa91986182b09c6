/**
 * Batch runs: a manifest lists cases (graph files, or printed torch.fx code and XLA HLO text to
 * import, a relation, the verdicts expected and optionally the failing operator); the runner checks
 * every case in one JVM, several at once where cores allow, and hands back each case's outcome in
 * manifest order. {@code entangle batch} renders them; {@code scripts/verify-examples} runs the
 * examples' manifest.
 */
package dev.entangle.batch;
