/** Perturbation spaces, operators, experimental designs, response validators and scenario kits. */
package io.infermark.perturbation;
