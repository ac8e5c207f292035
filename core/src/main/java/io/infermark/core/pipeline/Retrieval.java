package io.infermark.core.pipeline;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link Retriever} returned for one query: document ids best first, their passages (the
 * text given to generation), and optional annotations for the record (an index's own numbers, such
 * as the searches in flight it saw).
 *
 * @param ids document ids, best first; no id may contain a comma (records list them comma-separated)
 * @param passages the documents' text, one per id (or none, to generate without context)
 * @param annotations names and values added to the request's record tags
 */
public record Retrieval(List<String> ids, List<String> passages, Map<String, String> annotations) {

  /** Validates and copies. */
  public Retrieval {
    ids = List.copyOf(ids);
    passages = List.copyOf(passages);
    annotations = Map.copyOf(annotations);
    if (!passages.isEmpty() && passages.size() != ids.size()) {
      throw new IllegalArgumentException("give one passage per id or none, got " + passages.size() + " passages for "
          + ids.size() + " ids");
    }
    for (String id : ids) {
      if (id.isEmpty() || id.indexOf(',') >= 0) {
        throw new IllegalArgumentException("document id '" + id + "' is empty or contains a comma; records list ids "
            + "comma-separated");
      }
    }
  }

  /** Ids with their passages and no annotations. */
  public static Retrieval of(List<String> ids, List<String> passages) {
    return new Retrieval(ids, passages, Map.of());
  }

  @Override
  public String toString() {
    return "Retrieval" + ids + (annotations.isEmpty() ? "" : " " + annotations);
  }
}
