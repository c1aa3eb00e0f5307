/** Types of agent-request.js (the agent cases' synthetic coding-agent turn; see there). */

/** A chat message of the turn, as the client sends it. */
export interface AgentMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** A tool of the turn: a function with a JSON-Schema `parameters`. */
export interface AgentTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** The turn: the client's body without `stream` (`fields`), and its parts. */
export interface AgentTurn {
  fields: {
    model: string;
    messages: AgentMessage[];
    tools: AgentTool[];
    tool_choice: 'auto';
    parallel_tool_calls: boolean;
    temperature: number;
    max_tokens: number;
  };
  system: string;
  tools: AgentTool[];
  messages: AgentMessage[];
}

export const AGENT_DEFAULT_KB: number;
export const AGENT_KB: number;
export const AGENT_MAX_TOKENS: number;
export const AGENT_MODEL: string;
export const AGENT_UPSTREAM_MODEL: string;
export const MIN_KB: number;
export function agentTurn(kb?: number, seed?: number): AgentTurn;
export function agentGatewayBody(stream: boolean, kb?: number, seed?: number): string;
export function agentUpstreamBody(stream: boolean, kb?: number, seed?: number): string;
export const AGENT_MESSAGES_MODEL: string;
export const AGENT_MESSAGES_UPSTREAM_MODEL: string;
/** The turn in Anthropic's Messages shape, without `model` and `stream`. */
export function agentMessagesFields(kb?: number, seed?: number): Record<string, unknown> & { messages: unknown[] };
export function agentMessagesBody(stream: boolean, upstream: boolean, kb?: number, seed?: number): string;
/** An input item of the Responses shape: a message, a tool call, or its output. */
export type AgentResponsesItem =
  | {
      type: 'message';
      role: 'user' | 'assistant';
      content: Array<{ type: 'input_text' | 'output_text'; text: string }>;
    }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string };
/** The turn in the Responses shape, as Codex sends one, without `model` and `stream`. */
export function agentResponsesFields(
  kb?: number,
  seed?: number,
): Record<string, unknown> & { instructions: string; input: AgentResponsesItem[] };
export function agentResponsesBody(stream: boolean, upstream: boolean, kb?: number, seed?: number): string;
