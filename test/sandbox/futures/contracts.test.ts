/**
 * futures/contracts.ts: the contracts in GET /api/v1/exchangeInfo (`contracts`, the UAE
 * documentation's fields; site MENA only; `symbol` naming a contract lists just it), the mark
 * price (the spot pair's walk price), and the grid helpers.
 */
import { DEMO_KEYS } from '../../../sandbox';
import {
	CONTRACTS,
	findContract,
	floorToStep,
	markPriceAt,
	onStep,
} from '../../../sandbox/futures/contracts';
import { Market } from '../../../sandbox/market/market';
import { rawRequest } from '../../../sandbox/testClient';
import { useSandbox } from '../../support/sandbox';
import { T0 } from '../support';

const sandbox = useSandbox({ now: () => T0, rateLimit: false, requestRates: false });
const info = async (query: string) => {
	const r = await rawRequest(sandbox().baseUrl, {
		method: 'GET',
		url: `/api/v1/exchangeInfo?${query}`,
		headers: { 'X-APIKEY': DEMO_KEYS.readOnly.apiKey },
	});
	return { status: r.status, json: r.json };
};

describe('exchangeInfo contracts', () => {
	it('site MENA lists the four contracts with every documented field, decimals as strings', async () => {
		const r = await info('site=MENA');
		expect(r.status).toBe(200);
		const contracts = r.json.contracts;
		expect(contracts.map((c: { symbol: string; status: string }) => [c.symbol, c.status])).toEqual([
			['BTCUSDT-PERPETUAL', 'TRADING'],
			['ETHUSDT-PERPETUAL', 'TRADING'],
			['SOLUSDT-PERPETUAL', 'TRADING'],
			['XRPUSDT-PERPETUAL', 'HALT'],
		]);
		expect(contracts[0]).toEqual({
			filters: [
				{
					minPrice: '0.1',
					maxPrice: '100000.00000000',
					tickSize: '0.1',
					filterType: 'PRICE_FILTER',
				},
				{
					minQty: '0.001',
					maxQty: '10',
					stepSize: '0.001',
					marketOrderMinQty: '0.001',
					marketOrderMaxQty: '5',
					filterType: 'LOT_SIZE',
				},
				{ minNotional: '0', filterType: 'MIN_NOTIONAL' },
				{
					maxSellPrice: '999999',
					buyPriceUpRate: '0.03',
					sellPriceDownRate: '0.03',
					maxEntrustNum: 200,
					maxConditionNum: 200,
					filterType: 'LIMIT_TRADING',
				},
				{ buyPriceUpRate: '0.03', sellPriceDownRate: '0.03', filterType: 'MARKET_TRADING' },
				{
					noAllowMarketStartTime: '0',
					noAllowMarketEndTime: '0',
					limitOrderStartTime: '0',
					limitOrderEndTime: '0',
					limitMinPrice: '0',
					limitMaxPrice: '0',
					filterType: 'OPEN_QUOTE',
				},
			],
			exchangeId: '301',
			symbol: 'BTCUSDT-PERPETUAL',
			symbolName: 'BTCUSDT-PERPETUAL',
			status: 'TRADING',
			baseAsset: 'BTC',
			baseAssetPrecision: '0.001',
			quoteAsset: 'USDT',
			quoteAssetPrecision: '0.1',
			icebergAllowed: false,
			inverse: false,
			index: 'BTCUSDT',
			marginToken: 'USDT',
			marginPrecision: '0.0001',
			contractMultiplier: '0.001',
			underlying: 'BTC',
			riskLimits: [
				{ riskLimitId: '127', quoteQty: '125000.00', initialMargin: '0.05', maintMargin: '0.025' },
				{
					riskLimitId: '128',
					quoteQty: '250000.00',
					initialMargin: '0.0526',
					maintMargin: '0.0263',
				},
			],
		});
		expect(r.json.symbols.length).toBeGreaterThan(0);
	});

	it('symbol naming a contract lists only it (no spot symbol); a spot symbol lists no contract; HK none', async () => {
		const one = await info('site=MENA&symbol=ETHUSDT-PERPETUAL');
		expect(one.json.symbols).toEqual([]);
		expect(one.json.contracts.map((c: { symbol: string }) => c.symbol)).toEqual([
			'ETHUSDT-PERPETUAL',
		]);
		expect((await info('site=MENA&symbol=ETHUSDT')).json.contracts).toEqual([]);
		expect((await info('site=HK')).json.contracts).toEqual([]);
		expect((await info('')).json.contracts).toEqual([]);
		const hk = await info('site=HK&symbol=ETHUSDT-PERPETUAL');
		expect(hk.json.code).toBe('0201');
		expect((await info('site=MENA&symbol=ETHUSD-PERPETUAL')).json.code).toBe('0201');
	});
});

describe('contract helpers', () => {
	it('findContract is exact: a spot name or another case is no contract', () => {
		expect(findContract('SOLUSDT-PERPETUAL')?.marginType).toBe('CROSS');
		expect(findContract('BTCUSDT-PERPETUAL')?.marginType).toBe('ISOLATED');
		expect(findContract('BTCUSDT')).toBeUndefined();
		expect(findContract('btcusdt-perpetual')).toBeUndefined();
	});

	it('the mark price is the spot pair’s walk price at that moment', () => {
		const moving = new Market({ symbolRules: 'realistic', seed: 1, moving: true }, () => T0);
		const btc = CONTRACTS[0];
		const spot = moving.tradable('BTCUSDT')!;
		for (const ms of [T0, T0 + 61_000, T0 + 86_400_000])
			expect(markPriceAt(moving, btc, ms)).toBe(moving.priceAt(spot, ms));
		const fixed = new Market({ symbolRules: 'lenient', seed: 1, moving: true }, () => T0);
		expect(markPriceAt(fixed, btc, T0 + 5)).toBe('50000');
	});

	it('onStep and floorToStep', () => {
		expect(onStep('0.003', '0.001')).toBe(true);
		expect(onStep('0.0035', '0.001')).toBe(false);
		expect(onStep('150', '0.001')).toBe(true);
		expect(floorToStep('50123.45', '0.1')).toBe('50123.4');
		expect(floorToStep('0.00001', '0.1')).toBe('0.1');
	});
});
