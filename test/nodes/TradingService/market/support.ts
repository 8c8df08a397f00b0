/**
 * What every Market test checks of the requests a run sent: the market-data path, `site=MENA`, the
 * API key header, and no timestamp, receive window or signature (market data is not signed).
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { LedgerRequest, Sandbox } from '../../../../sandbox';
import { DEMO_KEYS, type DemoKey } from '../../../../sandbox';
import { runCounting, type CountedRun } from '../../../support/runs';

export const MARKET_PATHS = {
	exchangeInfo: '/api/v1/exchangeInfo',
	price: '/quote/v1/ticker/price',
	ticker24h: '/quote/v1/ticker/24hr',
	depth: '/quote/v1/depth',
	trades: '/quote/v1/trades',
	klines: '/quote/v1/klines',
} as const;

/** The query parameters of a request the sandbox recorded, in the order sent. */
export function queryOf(request: LedgerRequest): Array<[string, string]> {
	return [...new URLSearchParams(request.query).entries()];
}

/** Runs the node on one Market operation. */
export async function runMarket(
	sandbox: Sandbox,
	operation: string,
	parameters: Record<string, unknown> = {},
	options: {
		key?: DemoKey;
		continueOnFail?: boolean;
		inputItems?: INodeExecutionData[];
		/** The node's version (default 1). */
		version?: 1 | 2;
	} = {},
): Promise<CountedRun> {
	const { version, ...rest } = options;
	return await runCounting(sandbox, {
		parameters: { resource: 'market', operation, ...parameters },
		...rest,
		...(version === undefined ? {} : { node: { typeVersion: version } }),
	});
}

/**
 * Each request went to `path` with the key's X-APIKEY, `site=MENA`, and nothing of a signed
 * request (no timestamp, recvWindow or signature), and the sandbox answered 200.
 */
export function expectMarketRequests(
	requests: LedgerRequest[],
	path: string,
	key: DemoKey = DEMO_KEYS.master,
): void {
	expect(requests.length).toBeGreaterThan(0);
	for (const request of requests) {
		const query = new URLSearchParams(request.query);
		expect({
			method: request.method,
			path: request.path,
			status: request.status,
			apiKey: request.apiKey,
			site: query.getAll('site'),
			signed: ['timestamp', 'recvWindow', 'signature'].filter((name) => query.has(name)),
			weight: request.weight,
		}).toEqual({
			method: 'GET',
			path,
			status: 200,
			apiKey: key.apiKey,
			site: ['MENA'],
			signed: [],
			weight: 1,
		});
	}
}

/** What the sandbox answers a market-data path directly (MENA site, master key): the reference. */
export async function sandboxAnswer(
	sandbox: Sandbox,
	path: string,
	query: Record<string, string>,
): Promise<unknown> {
	const before = sandbox.ledger.requests.length;
	const response = await fetch(
		`${sandbox.baseUrl}${path}?${new URLSearchParams({ ...query, site: 'MENA' }).toString()}`,
		{ headers: { 'X-APIKEY': DEMO_KEYS.master.apiKey } },
	);
	// Not one of the node's requests: out of the ledger the tests read.
	sandbox.ledger.requests.splice(before);
	return await response.json();
}
