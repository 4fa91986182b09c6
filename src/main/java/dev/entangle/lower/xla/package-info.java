/**
 * The XLA front end: HLO instructions (as imported into graph nodes) mapped to core terms ({@code
 * XlaLowering}) and the custom calls it knows ({@code XlaCustomCalls}).
 */
package dev.entangle.lower.xla;
