/**
 * The scripted model of the reduce-only futures agent (examples/futures-reduce-only-agent.json),
 * for the demo and test/e2e/futures-trading.e2e.test.ts against tools/fakeOpenAi.ts. Asked to take
 * profit on half of the BTCUSDT-PERPETUAL position and then to buy 0.05 BTC more, it reads the
 * positions, sells half the position (reduce-only: placed), tries the buy (an increase: the tool
 * refuses it), then answers with both outcomes. A request that does not offer exactly the example's
 * two tools is refused.
 */
import { toolResults, type ChatReply, type ChatRequest } from './fakeOpenAi';

/** The example's tools, as n8n names them for the model. */
export const FUTURES_AGENT_TOOLS = {
	positions: 'Get_Positions',
	order: 'Place_Futures_Order',
} as const;

export const AGENT_CONTRACT = 'BTCUSDT-PERPETUAL';
/** What the user asks the agent to buy more of: an increase, which the tool must refuse. */
export const AGENT_BUY_QUANTITY = '0.05';

/** Whether a chat request is the futures agent's (it offers the example's two tools). */
export function isFuturesAgentRequest(request: ChatRequest): boolean {
	const names = (request.tools ?? []).map((tool) => tool.function.name).sort();
	return JSON.stringify(names) === JSON.stringify(Object.values(FUTURES_AGENT_TOOLS).sort());
}

/** Every `{ symbol, baseQty }` object in a tool's answer (JSON at any depth, or JSON text in it). */
export function positionsIn(content: string): Array<{ symbol: string; baseQty: string }> {
	const found: Array<{ symbol: string; baseQty: string }> = [];
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
			if (typeof o.symbol === 'string' && typeof o.baseQty === 'string')
				found.push({ symbol: o.symbol, baseQty: o.baseQty });
			else Object.values(o).forEach(walk);
		}
	};
	walk(content);
	return found;
}

/** Half of a decimal quantity, exact (one more decimal place when needed). */
export function halfOf(quantity: string): string {
	const [int, frac = ''] = quantity.split('.');
	const scale = frac.length + 1;
	const digits = (BigInt(int + frac) * 5n).toString().padStart(scale + 1, '0');
	const whole = digits.slice(0, -scale);
	const part = digits.slice(-scale).replace(/0+$/, '');
	return part ? `${whole}.${part}` : whole;
}

/** The outcome a tool answer reports, or "refused: <the error's first words>". */
export function outcomeIn(content: string): string {
	const outcome = /"outcome":\s*"(\w+)"/.exec(content)?.[1];
	if (outcome !== undefined && outcome !== 'rejected') return outcome;
	return `refused: ${content.replace(/\s+/g, ' ').slice(0, 160)}`;
}

/** One conversation's model: `respond` answers each chat request, `answer` is its last text. */
export function reduceOnlyAgent(): {
	respond: (request: ChatRequest) => ChatReply;
	answer: () => string;
} {
	let answer = '';
	return {
		answer: () => answer,
		respond: (request) => {
			if (!isFuturesAgentRequest(request))
				throw new Error(
					`tools offered: ${JSON.stringify((request.tools ?? []).map((t) => t.function.name))}`,
				);
			const results = toolResults(request);
			const listed = results.filter((r) => r.name === FUTURES_AGENT_TOOLS.positions);
			const orders = results.filter((r) => r.name === FUTURES_AGENT_TOOLS.order);
			if (listed.length === 0)
				return { toolCalls: [{ name: FUTURES_AGENT_TOOLS.positions, arguments: {} }] };
			const position = positionsIn(listed[0].content).find((p) => p.symbol === AGENT_CONTRACT);
			if (position === undefined) {
				answer = `You hold no ${AGENT_CONTRACT} position: nothing to take profit on, and I may not buy.`;
				return { text: answer };
			}
			const half = halfOf(position.baseQty);
			const order = (side: string, quantity: string): ChatReply => ({
				toolCalls: [
					{
						name: FUTURES_AGENT_TOOLS.order,
						arguments: { symbol: AGENT_CONTRACT, side, quantity },
					},
				],
			});
			if (orders.length === 0) return order('SELL', half);
			if (orders.length === 1) return order('BUY', AGENT_BUY_QUANTITY);
			answer =
				`SELL ${half} ${AGENT_CONTRACT} (half of ${position.baseQty}): ${outcomeIn(orders[0].content)}. ` +
				`BUY ${AGENT_BUY_QUANTITY} ${AGENT_CONTRACT}: ${outcomeIn(orders[1].content)}.`;
			return { text: answer };
		},
	};
}
