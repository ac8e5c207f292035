package io.infermark.core.run;

/**
 * One way of deciding when requests are issued: {@link OpenLoop}, {@link ControlledRateLoop},
 * {@link ClosedLoop} or {@link AsyncClosedLoop}, each over the run's {@link IssuingCore}.
 */
interface LoadMode {

  /**
   * Issues the run's requests until its limits are reached, its deadline passes or it is stopped;
   * returns when nothing more will be issued (requests may still be in flight). Every scheduled
   * request it does not issue is recorded as not sent, so none goes missing.
   */
  void issue();
}
