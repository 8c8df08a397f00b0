/**
 * What the Futures tests share: running the node (version 2) on one Futures operation, the paths of
 * the futures reads, the requests a run sent to one of them, and exact decimal arithmetic.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { LedgerRequest, Sandbox } from '../../../../sandbox';
import type { DemoKey } from '../../../../sandbox';
import { runCounting, type CountedRun } from '../../../support/runs';

export const FUTURES = {
	positions: '/api/v2/futures/positions',
	balance: '/api/v2/futures/balance',
	fundingRate: '/api/v2/futures/fundingRate',
	historyFundingRate: '/api/v2/futures/historyFundingRate',
	historyFundingFees: '/api/v2/futures/historyFundingFees',
	openOrders: '/api/v2/futures/openOrders',
	historyOrders: '/api/v2/futures/historyOrders',
	order: '/api/v2/futures/order',
	userTrades: '/api/v2/futures/userTrades',
	leverage: '/api/v2/futures/leverage',
	commissionRate: '/api/v2/futures/commissionRate',
	exchangeInfo: '/api/v1/exchangeInfo',
} as const;

export const BTC = 'BTCUSDT-PERPETUAL';
export const ETH = 'ETHUSDT-PERPETUAL';
/** The contracts the sandbox lists, in exchange information's order (XRP is halted). */
export const CONTRACTS = [
	'BTCUSDT-PERPETUAL',
	'ETHUSDT-PERPETUAL',
	'SOLUSDT-PERPETUAL',
	'XRPUSDT-PERPETUAL',
];

/** A contract picked from the list, as version 2 stores it. */
export const picked = (symbol: string) => ({ __rl: true, mode: 'list', value: symbol });

/** Runs the node, version 2, on one Futures operation. */
export async function runFutures(
	sandbox: Sandbox,
	operation: string,
	parameters: Record<string, unknown> = {},
	options: { key?: DemoKey; continueOnFail?: boolean; inputItems?: INodeExecutionData[] } = {},
): Promise<CountedRun> {
	return await runCounting(sandbox, {
		parameters: { resource: 'futures', operation, ...parameters },
		node: { typeVersion: 2 },
		...options,
	});
}

/** The query strings of a run's requests to `path`, in the order sent. */
export function queriesTo(requests: LedgerRequest[], path: string): URLSearchParams[] {
	return requests
		.filter((request) => request.path === path)
		.map((request) => new URLSearchParams(request.query));
}

/** The output items' JSON. */
export const jsonOf = (run: CountedRun) => run.items.map((item) => item.json);

/** A decimal string as an integer and a scale, exactly. */
function parse(text: string): { units: bigint; scale: number } {
	const negative = text.startsWith('-');
	const [whole, fraction = ''] = text.replace(/^-/, '').split('.');
	const units = BigInt(whole + fraction);
	return { units: negative ? -units : units, scale: fraction.length };
}

/** The exact product of decimal strings, trailing zeros (and a lone dot) dropped. */
export function multiply(...factors: string[]): string {
	let units = 1n;
	let scale = 0;
	for (const factor of factors) {
		const parsed = parse(factor);
		units *= parsed.units;
		scale += parsed.scale;
	}
	const negative = units < 0n;
	const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
	const whole = digits.slice(0, digits.length - scale);
	const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
	const text = fraction === '' ? whole : `${whole}.${fraction}`;
	return negative && text !== '0' ? `-${text}` : text;
}

/** The same decimal, written canonically (no trailing zeros), for comparing numbers as text. */
export const canonical = (text: string) => multiply(text, '1');
