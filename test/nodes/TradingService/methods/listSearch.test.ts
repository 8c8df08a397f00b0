import { DEMO_ACCOUNTS, DEMO_KEYS, type Sandbox } from '../../../../sandbox';
import { MENA_SYMBOLS } from '../../../../sandbox/market/catalogue';
import { TestClient } from '../../../../sandbox/testClient';
import { searchList, type ListSearchMethod } from '../../../../tools/harness/listSearch';
import { requestsTo } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

// The lists behind version 2's pickers, run as the editor runs them (n8n-core's load-options
// context and request helpers), checked against what the sandbox holds.

// Realistic rules: the exchange info lists halted and preview symbols as such.
// Prices stand still, so the list and the reference read agree.
const sandbox = useSandbox({
	rateLimit: false,
	requestRates: false,
	symbolRules: 'realistic',
	market: { moving: false },
});
/** The last price of each symbol, as the sandbox answers GET /quote/v1/ticker/price itself. */
async function lastPricesOf(sb: Sandbox): Promise<Map<string, string>> {
	const before = sb.ledger.requests.length;
	const response = await fetch(`${sb.baseUrl}/quote/v1/ticker/price?site=MENA`, {
		headers: { 'X-APIKEY': DEMO_KEYS.master.apiKey },
	});
	sb.ledger.requests.splice(before); // not one of the node's requests
	const answer = (await response.json()) as Array<{ s: string; p: string }>;
	return new Map(answer.map((entry) => [entry.s, entry.p]));
}
const values = (result: { results: Array<{ value: unknown }> }) =>
	result.results.map((entry) => entry.value);

describe('list searches (version 2 pickers)', () => {
	it('Symbol: every trading pair of the MENA exchange info with its last price; those that cannot be traded say so in words and come last', async () => {
		const prices = await lastPricesOf(sandbox());
		const before = sandbox().ledger.requests.length;
		const result = await searchList(sandbox(), 'searchSymbols');
		const closed = (symbol: string) =>
			MENA_SYMBOLS.find((entry) => entry.symbol === symbol)!.rules.status !== 'TRADING';
		const expectedOrder = MENA_SYMBOLS.map((entry) => entry.symbol).sort(
			(a, b) => Number(closed(a)) - Number(closed(b)) || a.localeCompare(b, 'en'),
		);
		expect(values(result)).toEqual(expectedOrder);
		expect(values(result).slice(-2)).toEqual(['ADAUSDT', 'XRPUSDT']);
		expect(result.results).toContainEqual({
			name: `BTCUSDT · 1 BTC = ${prices.get('BTCUSDT')} USDT`,
			value: 'BTCUSDT',
		});
		expect(result.results).toContainEqual({
			name: `XRPUSDT · trading halted · 1 XRP = ${prices.get('XRPUSDT')} USDT`,
			value: 'XRPUSDT',
		});
		expect(result.results).toContainEqual({
			name: `ADAUSDT · not trading yet · 1 ADA = ${prices.get('ADAUSDT')} USDT`,
			value: 'ADAUSDT',
		});
		for (const entry of result.results) expect(entry.name).not.toMatch(/HALT|IN_PREVIEW/);
		// Market data: sent with the API key and no signature, for the MENA site; one price read.
		const requests = sandbox().ledger.requests.slice(before);
		expect(requests.filter((r) => r.path === '/quote/v1/ticker/price')).toEqual([
			expect.objectContaining({ query: 'site=MENA', status: 200, weight: 1 }),
		]);
		const [request] = requestsTo(sandbox(), '/api/v1/exchangeInfo');
		expect(request.query).toBe('site=MENA');
	});

	it('Symbol: the list still works when the price read fails (a rate limit the picker does not wait for), without prices', async () => {
		sandbox().setFaults({
			rules: [
				{ kind: 'rateLimit', times: 5, path: '/quote/v1/ticker/price', retryAfterSeconds: 0 },
			],
		});
		try {
			const result = await searchList(sandbox(), 'searchSymbols');
			expect(values(result)).toHaveLength(MENA_SYMBOLS.length);
			expect(result.results).toContainEqual({ name: 'BTCUSDT (BTC/USDT)', value: 'BTCUSDT' });
			expect(result.results).toContainEqual({
				name: 'XRPUSDT (XRP/USDT) · trading halted',
				value: 'XRPUSDT',
			});
		} finally {
			sandbox().setFaults({ rules: [] });
		}
	});

	it('Contract: the futures contracts with their coins; a halted one says so in words and comes last', async () => {
		const result = await searchList(sandbox(), 'searchContracts' as ListSearchMethod);
		expect(result.results).toEqual([
			{ name: 'BTCUSDT-PERPETUAL (BTC/USDT)', value: 'BTCUSDT-PERPETUAL' },
			{ name: 'ETHUSDT-PERPETUAL (ETH/USDT)', value: 'ETHUSDT-PERPETUAL' },
			{ name: 'SOLUSDT-PERPETUAL (SOL/USDT)', value: 'SOLUSDT-PERPETUAL' },
			{
				name: 'XRPUSDT-PERPETUAL (XRP/USDT) · trading halted',
				value: 'XRPUSDT-PERPETUAL',
			},
		]);
	});

	it('Symbol: the search box filters by symbol or coin, in any case', async () => {
		const result = await searchList(sandbox(), 'searchSymbols', { filter: 'eth' });
		expect(values(result)).toEqual(
			MENA_SYMBOLS.filter((entry) => /ETH/.test(entry.symbol))
				.map((entry) => entry.symbol)
				.sort(),
		);
	});

	it('Coin: every base and quote coin of the trading pairs, once each', async () => {
		const result = await searchList(sandbox(), 'searchCoins');
		const coins = new Set(MENA_SYMBOLS.flatMap((entry) => [entry.base, entry.quote]));
		expect(values(result)).toEqual([...coins].sort());
		expect(values(await searchList(sandbox(), 'searchCoins', { filter: 'usd' }))).toEqual(
			[...coins].filter((coin) => /USD/.test(coin)).sort(),
		);
	});

	it("Account: the key's accounts a transfer can use, from GET /api/v1/account/type, each with its kind, signed", async () => {
		const result = await searchList(sandbox(), 'searchAccounts');
		// The accounts a transfer can use; the futures (10003) and fiat (10006) accounts are left out.
		expect(result.results).toEqual([
			{
				name: `Main Trading Account · ${DEMO_ACCOUNTS.mainTrading}`,
				value: DEMO_ACCOUNTS.mainTrading,
			},
			{ name: `Custody Account · ${DEMO_ACCOUNTS.custody}`, value: DEMO_ACCOUNTS.custody },
			{
				name: `Sub Main Trading Account (sub trading) · ${DEMO_ACCOUNTS.subTrading}`,
				value: DEMO_ACCOUNTS.subTrading,
			},
		]);
		const [request] = requestsTo(sandbox(), '/api/v1/account/type');
		expect(request.query).toMatch(/timestamp=\d+&signature=[0-9a-f]{64}$/);
		expect(values(await searchList(sandbox(), 'searchAccounts', { key: DEMO_KEYS.sub }))).toEqual([
			DEMO_ACCOUNTS.subTrading,
		]);
		expect(values(await searchList(sandbox(), 'searchAccounts', { filter: 'custody' }))).toEqual([
			DEMO_ACCOUNTS.custody,
		]);
	});

	it("Order ID: the key's open orders, each with its time (UTC), whole ID, side, quantity and limit price with their coins", async () => {
		const client = new TestClient(sandbox().baseUrl, DEMO_KEYS.master, () => sandbox().now());
		const placed: string[] = [];
		for (const [symbol, price] of [
			['BTCUSDT', '1000'],
			['ETHUSDT', '100'],
		]) {
			const answer = await client.order({
				symbol,
				side: 'BUY',
				type: 'LIMIT',
				price,
				quantity: '0.5',
				timeInForce: 'GTC',
				newClientOrderId: `picker-${symbol}`,
			});
			expect(answer.status).toBe(200);
			placed.push(String((answer.json as { orderId: string }).orderId));
		}
		const open = (await client.openOrders()).json as Array<{ orderId: string; time: string }>;
		const time = Number(open.find((order) => order.orderId === placed[0])!.time);
		const result = await searchList(sandbox(), 'searchOpenOrders');
		expect(values(result).sort()).toEqual([...placed].sort());
		expect(result.results).toContainEqual({
			name: `${new Date(time).toISOString().slice(0, 16).replace('T', ' ')} UTC · ${placed[0]} · BUY 0.5 BTC @ 1000 USDT`,
			value: placed[0],
			description: 'Client order ID picker-BTCUSDT, status NEW',
		});
		expect(
			values(await searchList(sandbox(), 'searchOpenOrders', { filter: 'picker-eth' })),
		).toEqual([placed[1]]);
	});

	it('fails with the service’s error when the credential is wrong, as any request would', async () => {
		await expect(
			searchList(sandbox(), 'searchAccounts', { credentials: { secretKey: 'x'.repeat(64) } }),
		).rejects.toThrow(/signature/i);
	});
});
