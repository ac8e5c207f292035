/**
 * The one clock of a run: {@link io.infermark.core.time.Clock}, the monotonic-time seam every measurement
 * reads, injectable in tests. The ground floor: imports nothing of infermark.
 *
 * <p>May import: no other infermark package.
 */
package io.infermark.core.time;
