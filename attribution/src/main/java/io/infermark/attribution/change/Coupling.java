package io.infermark.attribution.change;

/**
 * How the requests of run A and run B are matched, so that "component j takes run B's value" means
 * something for each request.
 */
public enum Coupling {
  /**
   * Request by request through their keys: when the same trace was replayed, each request of A is
   * paired with the request of B that has the same key (trace line, request index). Requests without a
   * partner make the decomposition fail, unless it is told to drop them (and then it counts them).
   */
  PAIRED,
  /**
   * By rank of outcome (quantile coupling): the requests of each run are ordered by their outcome (the
   * sum of the components, or the model's prediction) and the i-th fastest of A is matched with the
   * i-th fastest of B. With different sample sizes both runs are evaluated at the same
   * {@code max(n_A, n_B)} quantile levels {@code q_i = i/(m−1)}, each level taking the request at the
   * nearest rank {@code round(q_i (n−1))}: the larger run is used as is, the smaller one repeats some
   * requests, so its statistic can differ from the raw one by up to one rank step.
   */
  BY_RANK
}
