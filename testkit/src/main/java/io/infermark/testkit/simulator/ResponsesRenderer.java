package io.infermark.testkit.simulator;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;

/** OpenAI's Responses API: typed {@code response.*} SSE events around one message output item. */
final class ResponsesRenderer extends ProtocolRenderer {
  private int sequence;
  private boolean reasoningOpen;
  private int messageIndex;

  ResponsesRenderer(JsonFactory json, String id, long created, String model) {
    super(json, id, created, model);
  }

  @Override
  boolean sendsRoleChunk() {
    return true;
  }

  @Override
  void begin() {
    sequence = 0;
    reasoningOpen = false;
    messageIndex = 0;
  }

  private String msgId() {
    return "msg_" + id().substring(5);
  }

  private void response(JsonGenerator g, String status, TokenUsage usage, int reasoning, String incomplete)
      throws IOException {
    g.writeObjectFieldStart("response");
    g.writeStringField("id", id());
    g.writeStringField("object", "response");
    g.writeNumberField("created_at", created());
    g.writeStringField("status", status);
    g.writeStringField("model", model());
    if (incomplete != null) {
      g.writeObjectFieldStart("incomplete_details");
      g.writeStringField("reason", incomplete);
      g.writeEndObject();
    } else {
      g.writeNullField("incomplete_details");
    }
    g.writeArrayFieldStart("output");
    g.writeEndArray();
    if (usage == null) {
      g.writeNullField("usage");
    } else {
      g.writeObjectFieldStart("usage");
      g.writeNumberField("input_tokens", usage.promptTokens());
      g.writeObjectFieldStart("input_tokens_details");
      g.writeNumberField("cached_tokens", reportsCachedTokens() ? cachedPromptTokens() : 0);
      g.writeEndObject();
      g.writeNumberField("output_tokens", usage.completionTokens());
      g.writeObjectFieldStart("output_tokens_details");
      g.writeNumberField("reasoning_tokens", reasoning);
      g.writeEndObject();
      g.writeNumberField("total_tokens", usage.promptTokens() + usage.completionTokens());
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  private byte[] event(String type, Body fields) {
    int seq = sequence++;
    return typed(type, write(g -> {
      g.writeStartObject();
      g.writeStringField("type", type);
      g.writeNumberField("sequence_number", seq);
      fields.write(g);
      g.writeEndObject();
    }));
  }

  private byte[] itemAdded(int index, String type) {
    return event("response.output_item.added", g -> {
      g.writeNumberField("output_index", index);
      g.writeObjectFieldStart("item");
      g.writeStringField("id", (type.equals("message") ? "msg_" : "rs_") + id().substring(5));
      g.writeStringField("type", type);
      g.writeStringField("status", "in_progress");
      if (type.equals("message")) {
        g.writeStringField("role", "assistant");
      }
      g.writeArrayFieldStart("content");
      g.writeEndArray();
      g.writeEndObject();
    });
  }

  private byte[] partAdded(int index) {
    return event("response.content_part.added", g -> {
      g.writeStringField("item_id", msgId());
      g.writeNumberField("output_index", index);
      g.writeNumberField("content_index", 0);
      g.writeObjectFieldStart("part");
      g.writeStringField("type", "output_text");
      g.writeStringField("text", "");
      g.writeArrayFieldStart("annotations");
      g.writeEndArray();
      g.writeEndObject();
    });
  }

  @Override
  byte[] prelude(TokenUsage usage) {
    return concat(event("response.created", g -> response(g, "in_progress", null, 0, null)),
        event("response.in_progress", g -> response(g, "in_progress", null, 0, null)));
  }

  @Override
  byte[] contentEvent(long seed, int from, int to, String text, boolean reasoning, boolean last,
      String finishReason, TokenUsage usage) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    if (from == 0) {
      reasoningOpen = reasoning;
      messageIndex = reasoning ? 1 : 0;
      out.writeBytes(itemAdded(0, reasoning ? "reasoning" : "message"));
      if (!reasoning) {
        out.writeBytes(partAdded(0));
      }
    } else if (reasoningOpen && !reasoning) {
      reasoningOpen = false;
      out.writeBytes(event("response.output_item.done", g -> {
        g.writeNumberField("output_index", 0);
        g.writeObjectFieldStart("item");
        g.writeStringField("id", "rs_" + id().substring(5));
        g.writeStringField("type", "reasoning");
        g.writeStringField("status", "completed");
        g.writeEndObject();
      }));
      out.writeBytes(itemAdded(1, "message"));
      out.writeBytes(partAdded(1));
    }
    int index = reasoning ? 0 : messageIndex;
    out.writeBytes(event(reasoning ? "response.reasoning_text.delta" : "response.output_text.delta", g -> {
      g.writeStringField("item_id", (reasoning ? "rs_" : "msg_") + id().substring(5));
      g.writeNumberField("output_index", index);
      g.writeNumberField("content_index", 0);
      g.writeStringField("delta", text);
      if (!reasoning) {
        g.writeArrayFieldStart("logprobs");
        g.writeEndArray();
      }
    }));
    return out.toByteArray();
  }

  @Override
  byte[] trailer(long seed, TokenUsage usage, String finishReason, int reasoningTokens) {
    String text = OutputVocabulary.text(seed, reasoningTokens, usage.completionTokens());
    int index = messageIndex;
    boolean complete = !"length".equals(finishReason);
    return concat(
        event("response.output_text.done", g -> {
          g.writeStringField("item_id", msgId());
          g.writeNumberField("output_index", index);
          g.writeNumberField("content_index", 0);
          g.writeStringField("text", text);
        }),
        event("response.output_item.done", g -> {
          g.writeNumberField("output_index", index);
          g.writeObjectFieldStart("item");
          g.writeStringField("id", msgId());
          g.writeStringField("type", "message");
          g.writeStringField("status", complete ? "completed" : "incomplete");
          g.writeStringField("role", "assistant");
          g.writeEndObject();
        }),
        event(complete ? "response.completed" : "response.incomplete", g -> response(g,
            complete ? "completed" : "incomplete", usage, reasoningTokens, complete ? null : "max_output_tokens")));
  }

  @Override
  byte[] completion(String reasoning, String text, String finishReason, TokenUsage usage) {
    boolean complete = !"length".equals(finishReason);
    // Every vocabulary token is a space and a word, so the reasoning text's spaces count its tokens.
    int reasoningTokens = (int) reasoning.chars().filter(c -> c == ' ').count();
    return write(g -> {
      g.writeStartObject();
      g.writeStringField("id", id());
      g.writeStringField("object", "response");
      g.writeNumberField("created_at", created());
      g.writeStringField("status", complete ? "completed" : "incomplete");
      g.writeStringField("model", model());
      if (complete) {
        g.writeNullField("incomplete_details");
      } else {
        g.writeObjectFieldStart("incomplete_details");
        g.writeStringField("reason", "max_output_tokens");
        g.writeEndObject();
      }
      g.writeArrayFieldStart("output");
      if (!reasoning.isEmpty()) {
        g.writeStartObject();
        g.writeStringField("type", "reasoning");
        g.writeArrayFieldStart("content");
        g.writeStartObject();
        g.writeStringField("type", "reasoning_text");
        g.writeStringField("text", reasoning);
        g.writeEndObject();
        g.writeEndArray();
        g.writeEndObject();
      }
      g.writeStartObject();
      g.writeStringField("id", msgId());
      g.writeStringField("type", "message");
      g.writeStringField("role", "assistant");
      g.writeArrayFieldStart("content");
      g.writeStartObject();
      g.writeStringField("type", "output_text");
      g.writeStringField("text", text);
      g.writeEndObject();
      g.writeEndArray();
      g.writeEndObject();
      g.writeEndArray();
      g.writeObjectFieldStart("usage");
      g.writeNumberField("input_tokens", usage.promptTokens());
      g.writeNumberField("output_tokens", usage.completionTokens());
      g.writeObjectFieldStart("output_tokens_details");
      g.writeNumberField("reasoning_tokens", reasoningTokens);
      g.writeEndObject();
      g.writeNumberField("total_tokens", usage.promptTokens() + usage.completionTokens());
      g.writeEndObject();
      g.writeEndObject();
    });
  }

  @Override
  byte[] streamError(String message) {
    return event("error", g -> {
      g.writeStringField("code", "server_error");
      g.writeStringField("message", message);
      g.writeNullField("param");
    });
  }
}
