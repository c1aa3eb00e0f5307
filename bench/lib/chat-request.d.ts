/** Types of chat-request.js (the chat cases' one request; see there). */

export const CHAT_ROUTE: string;
export function chatGatewayBody(stream: boolean): string;
export function chatUpstreamBody(stream: boolean): string;
