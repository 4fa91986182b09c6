/**
 * Relation files as the user writes them: the expression syntax ({@code Expr}, {@code ExprParser},
 * {@code ExprPrinter}), expression shapes ({@code ExprShapes}) and validation against the graphs
 * ({@code RelationValidator}). The lowering stage turns a validated file into a {@code
 * CoreRelation}; nothing after it reads this package.
 */
package dev.entangle.relation;
