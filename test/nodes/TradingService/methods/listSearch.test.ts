import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../../../sandbox';
import { MENA_SYMBOLS } from '../../../../sandbox/market/catalogue';
import { TestClient } from '../../../../sandbox/testClient';
import { searchList } from '../../../../tools/harness/listSearch';
import { requestsTo } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

// The lists behind version 2's pickers, run as the editor runs them (n8n-core's load-options
// context and request helpers), checked against what the sandbox holds.

// Realistic rules: the exchange info lists halted and preview symbols as such.
const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'realistic' });
const values = (result: { results: Array<{ value: unknown }> }) =>
	result.results.map((entry) => entry.value);

describe('list searches (version 2 pickers)', () => {
	it('Symbol: every trading pair of the MENA exchange info, with its coins and a status that is not TRADING', async () => {
		const result = await searchList(sandbox(), 'searchSymbols');
		expect(values(result)).toEqual(MENA_SYMBOLS.map((entry) => entry.symbol).sort());
		const halted = MENA_SYMBOLS.find((entry) => entry.rules.status === 'HALT')!;
		expect(result.results).toContainEqual({
			name: `${halted.symbol} (${halted.base}/${halted.quote}, HALT)`,
			value: halted.symbol,
		});
		expect(result.results).toContainEqual({ name: 'BTCUSDT (BTC/USDT)', value: 'BTCUSDT' });
		expect(result.results).toContainEqual({
			name: 'ADAUSDT (ADA/USDT, IN_PREVIEW)',
			value: 'ADAUSDT',
		});
		// Market data: sent with the API key and no signature, for the MENA site.
		const [request] = requestsTo(sandbox(), '/api/v1/exchangeInfo');
		expect(request.query).toBe('site=MENA');
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

	it("Order ID: the key's open orders, named by symbol, side, type, quantity and price", async () => {
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
		const result = await searchList(sandbox(), 'searchOpenOrders');
		expect(values(result).sort()).toEqual([...placed].sort());
		expect(result.results).toContainEqual({
			name: `BTCUSDT BUY LIMIT 0.5 @ 1000 · ${placed[0]}`,
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
