/**
 * Developer tools over the numeric interpreter, outside the CLI: {@link
 * dev.entangle.numbers.tool.EvaluateGraphs} evaluates a case and writes every value as JSON, for
 * the Python tests that compare the interpreter with PyTorch.
 */
package dev.entangle.numbers.tool;
