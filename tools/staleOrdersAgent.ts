/**
 * The scripted model of the AI agent example (examples/agent-open-orders.json), for the demo and
 * the suites that run the example (e2e, queue mode) against tools/fakeOpenAi.ts: it asks Get Open
 * Orders for BTCUSDT, cancels the orders the tool returned that are older than a day (the current
 * time is in the system message), then answers with each cancel's outcome. A request that does not
 * offer exactly the example's two tools is refused.
 */
import { messageText, toolResults, type ChatReply, type ChatRequest } from './fakeOpenAi';

/** The example's tools, as n8n names them for the model. */
export const AGENT_TOOLS = { list: 'Get_Open_Orders', cancel: 'Cancel_Order' } as const;

const DAY_MS = 24 * 3_600_000;

/** Every `{ orderId, time }` object in a tool's answer (JSON at any depth, or JSON text inside it). */
export function ordersIn(
	content: string,
): Array<{ orderId: string; time: string; symbol?: string }> {
	const found: Array<{ orderId: string; time: string; symbol?: string }> = [];
	const walk = (value: unknown): void => {
		if (typeof value === 'string') {
			const text = value.trim();
			if (text.startsWith('[') || text.startsWith('{')) {
				try {
					walk(JSON.parse(text));
				} catch {
					/* plain text */
				}
			}
		} else if (Array.isArray(value)) {
			value.forEach(walk);
		} else if (value && typeof value === 'object') {
			const o = value as Record<string, unknown>;
			if (typeof o.orderId === 'string' && typeof o.time === 'string')
				found.push({ orderId: o.orderId, time: o.time, symbol: o.symbol as string | undefined });
			else Object.values(o).forEach(walk);
		}
	};
	walk(content);
	return found;
}

/** One conversation's model: `respond` answers each chat request, `answer` is its last text. */
export function staleOrdersAgent(): {
	respond: (request: ChatRequest) => ChatReply;
	answer: () => string;
} {
	let answer = '';
	const reply = (text: string): ChatReply => {
		answer = text;
		return { text };
	};
	return {
		answer: () => answer,
		respond: (request) => {
			const names = (request.tools ?? []).map((tool) => tool.function.name).sort();
			const expected = [AGENT_TOOLS.cancel, AGENT_TOOLS.list];
			if (JSON.stringify(names) !== JSON.stringify(expected))
				throw new Error(`tools offered: ${JSON.stringify(names)}`);
			const system = messageText(
				request.messages.find((m) => m.role === 'system') ?? { role: 'system' },
			);
			const now = Number(/\((\d{13}) ms since/.exec(system)?.[1]);
			if (!Number.isFinite(now))
				throw new Error(`no current time in the system message: ${system}`);
			const results = toolResults(request);
			const listed = results.filter((r) => r.name === AGENT_TOOLS.list);
			const cancels = results.filter((r) => r.name === AGENT_TOOLS.cancel);
			if (listed.length === 0)
				return { toolCalls: [{ name: AGENT_TOOLS.list, arguments: { symbol: 'BTCUSDT' } }] };
			const open = ordersIn(listed[0].content);
			if (cancels.length === 0) {
				const old = open.filter((o) => Number(o.time) < now - DAY_MS);
				if (old.length === 0)
					return reply(`You have ${open.length} open BTCUSDT orders, none older than a day.`);
				return {
					toolCalls: old.map((o) => ({
						name: AGENT_TOOLS.cancel,
						arguments: { orderId: o.orderId },
					})),
				};
			}
			const outcomes = cancels.map(
				(c) =>
					`${String(c.arguments.orderId)}: ${/"outcome":\s*"(\w+)"/.exec(c.content)?.[1] ?? 'no outcome'}`,
			);
			return reply(
				`You have ${open.length} open BTCUSDT orders. Cancelled the ones older than a day: ${outcomes.join(', ')}.`,
			);
		},
	};
}
