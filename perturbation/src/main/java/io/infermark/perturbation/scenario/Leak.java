package io.infermark.perturbation.scenario;

/**
 * One tenant's canary found in another tenant's response.
 *
 * @param requestId the id of the request whose response leaked ({@code #index} when it had none)
 * @param index the request's position in the run
 * @param owner the tenant whose canary appeared
 * @param recipient the tenant who received it
 */
public record Leak(String requestId, long index, String owner, String recipient) {

  @Override
  public String toString() {
    return "Leak[" + owner + "'s canary in " + recipient + "'s response " + requestId + "]";
  }
}
