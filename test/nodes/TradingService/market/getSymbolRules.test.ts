/**
 * Market > Get Symbol Rules through the node and n8n-core against the sandbox's realistic MENA
 * catalogue: one item per trading pair (or the one asked for), every decimal a string, read with
 * site=MENA, bad input refused before any request. How orders use the rules:
 * orders/create.symbolRules.test.ts.
 */
import { runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';

const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'realistic' });
const EXCHANGE_INFO = '/api/v1/exchangeInfo';

const getSymbolRules = (symbol = '') => ({
	resource: 'market',
	operation: 'getSymbolRules',
	symbol,
});

describe('Market > Get Symbol Rules', () => {
	it('gives the rules of one trading pair, every decimal as a string', async () => {
		const run = await runCounting(sandbox(), { parameters: getSymbolRules('BTCUSDT') });
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json)).toEqual([
			expect.objectContaining({
				symbol: 'BTCUSDT',
				status: 'TRADING',
				baseAsset: 'BTC',
				quoteAsset: 'USDT',
				tickSize: '0.01',
				stepSize: '0.00001',
				minQuantity: '0.00001',
				maxQuantity: '100',
				marketOrderMinQuantity: '0.00001',
				marketOrderMaxQuantity: '50',
				minNotional: '10',
				minAmount: '10',
				maxAmount: '5000000',
				marketOrderMinAmount: '10',
				marketOrderMaxAmount: '2000000',
				amountStep: '0.01',
				limitBuyPriceUpRate: '0.1',
				limitSellPriceDownRate: '0.1',
				maxOpenOrders: 300,
				filters: expect.arrayContaining([
					expect.objectContaining({ filterType: 'PRICE_FILTER', tickSize: '0.01' }),
				]),
			}),
		]);
		expect(run.requests.map((request) => [request.path, request.query])).toEqual([
			[EXCHANGE_INFO, 'site=MENA'],
		]);
	});

	it('gives one item per trading pair when Symbol is empty, with the 18-decimal tick exact', async () => {
		const run = await runCounting(sandbox(), { parameters: getSymbolRules() });
		const bySymbol = new Map(run.items.map((item) => [item.json.symbol, item.json]));
		expect([...bySymbol.keys()]).toEqual(
			expect.arrayContaining(['BTCUSDT', 'ETHUSDT', 'SOLUSDT', 'USDTAED', 'PEPEETH', 'XRPUSDT']),
		);
		expect(bySymbol.get('PEPEETH')?.tickSize).toBe('0.000000000000000001');
		expect(bySymbol.get('XRPUSDT')?.status).toBe('HALT');
	});

	it('reads afresh on every run (it refreshes the rules orders are checked against)', async () => {
		await runCounting(sandbox(), { parameters: getSymbolRules('BTCUSDT') });
		const again = await runCounting(sandbox(), { parameters: getSymbolRules('BTCUSDT') });
		expect(again.requests.map((request) => request.path)).toEqual([EXCHANGE_INFO]);
	});

	it('reads once per run however many items: 5 symbols, one request, each item its own pair', async () => {
		const symbols = ['BTCUSDT', 'ETHUSDT', 'XRPUSDT', 'BTCUSDT', 'PEPEETH'];
		for (const typeVersion of [1, 2]) {
			const run = await runCounting(sandbox(), {
				parameters: getSymbolRules('={{ $json.symbol }}'),
				inputItems: symbols.map((symbol) => ({ json: { symbol } })),
				node: { typeVersion },
			});
			expect(run.error).toBeUndefined();
			expect(run.requests.map((request) => request.path)).toEqual([EXCHANGE_INFO]);
			expect(run.items.map((item) => item.json.symbol)).toEqual(symbols);
		}
	});

	it('names the field when the trading pair is not listed', async () => {
		const run = await runCounting(sandbox(), { parameters: getSymbolRules('DOGEUSDT') });
		expect(run.error?.message).toBe('Symbol: the service has no trading pair DOGEUSDT');
	});

	it('refuses a malformed symbol before any request', async () => {
		const run = await runCounting(sandbox(), { parameters: getSymbolRules('btc-usdt') });
		expect(run.error?.message).toBe('Symbol: "btc-usdt" is not a trading pair symbol');
		expect(run.requests).toEqual([]);
	});
});
