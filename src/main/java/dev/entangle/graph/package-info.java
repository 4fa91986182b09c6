/**
 * The graph model the front ends produce: {@code Graph}, {@code Node} and {@code DistributedGraph}
 * (one graph per rank), read from and written to entangle-fx JSON with input validation ({@code
 * GraphJson}, {@code JsonTree} over Jackson's streaming API). Dtypes are the core language's
 * ({@code dev.entangle.core.Dtype}).
 */
package dev.entangle.graph;
