/** Console progress for long runs: {@link io.infermark.metrics.progress.ConsoleProgress}, an opt-in run listener. */
package io.infermark.metrics.progress;
