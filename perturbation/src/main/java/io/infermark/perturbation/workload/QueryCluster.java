package io.infermark.perturbation.workload;

import java.util.List;

/**
 * A group of similar queries from a log.
 *
 * @param id the cluster's number, in order of first appearance in the log
 * @param representative the member most similar on average to the others (among the first
 *     {@value QueryClustering#MEDOID_CANDIDATES} members; for {@link DensityWeightedClustering}, the
 *     member nearest the centroid), ties to the earliest
 * @param members indices into the log of the cluster's queries, in log order
 * @param weight the cluster's share of the requests: {@code members / queries} from
 *     {@link QueryClustering}, the noisy density weight from {@link DensityWeightedClustering}
 */
public record QueryCluster(int id, String representative, List<Integer> members, double weight) {

  /** Copies. */
  public QueryCluster {
    members = List.copyOf(members);
  }

  /** The number of queries in the cluster. */
  public int size() {
    return members.size();
  }
}
