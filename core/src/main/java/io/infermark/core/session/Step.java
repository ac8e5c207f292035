package io.infermark.core.session;

/**
 * One hop of a turn after its first model call: a client-side {@link ToolCall} or a {@link FanOut} to
 * parallel sub-agents. Each step's result joins the session's history and is followed by a model call
 * one {@code tool_call_depth} deeper.
 */
public sealed interface Step permits ToolCall, FanOut {}
