/**
 * Experimental designs over a perturbation space (full factorial, orthogonal arrays over Galois fields,
 * Sobol, random) and their quality measures.
 *
 * <p>May import: no other infermark package.
 */
package io.infermark.perturbation.design;
