import {
	lastPrices,
	orderEntryName,
	statusWords,
	symbolEntryName,
	tradableFirst,
	utcTime,
} from '../../../../nodes/TradingService/methods/listEntries';

// How the pickers name their entries, for the cases the sandbox does not hold.

describe('list entries (the names the pickers show)', () => {
	it('says in words what each status means for an order; TRADING says nothing', () => {
		expect(statusWords('TRADING')).toBeUndefined();
		expect(statusWords('HALT')).toBe('trading halted');
		expect(statusWords('IN_PREVIEW')).toBe('not trading yet');
		expect(statusWords('RESUMING')).toBe('trading resumes soon');
		expect(statusWords('BREAK')).toBe('status BREAK');
		expect(statusWords('')).toBe('status unknown');
	});

	it('names a symbol by its last price in its coins, else by its coins; the status words come before the price', () => {
		const btc = { symbol: 'BTCUSDT', baseAsset: 'BTC', quoteAsset: 'USDT', status: 'TRADING' };
		expect(symbolEntryName(btc, '65000.1')).toBe('BTCUSDT · 1 BTC = 65000.1 USDT');
		expect(symbolEntryName(btc, undefined)).toBe('BTCUSDT (BTC/USDT)');
		const halted = { ...btc, symbol: 'XRPUSDT', baseAsset: 'XRP', status: 'HALT' };
		expect(symbolEntryName(halted, '0.52')).toBe('XRPUSDT · trading halted · 1 XRP = 0.52 USDT');
		const noCoins = { symbol: 'NEWUSDT', baseAsset: '', quoteAsset: '', status: 'TRADING' };
		expect(symbolEntryName(noCoins, '3')).toBe('NEWUSDT · last 3');
		expect(symbolEntryName(noCoins, undefined)).toBe('NEWUSDT');
	});

	it('reads the last prices of a ticker answer as exact decimals, skipping what is not one', () => {
		const prices = lastPrices([
			{ s: 'BTCUSDT', p: '65000.10' },
			{ s: 'ETHUSDT', p: 'n/a' },
			{ s: 'SOLUSDT' },
			null,
			{ s: 'PEPEETH', p: '0.0000000123' },
		]);
		expect([...prices]).toEqual([
			['BTCUSDT', '65000.1'],
			['PEPEETH', '0.0000000123'],
		]);
		expect(lastPrices({ code: '-1' }).size).toBe(0);
	});

	it('lists what can be traded first, each group by name', () => {
		const entries = ['ZZZ:TRADING', 'AAA:HALT', 'MMM:TRADING', 'BBB:IN_PREVIEW'].map((text) => {
			const [name, status] = text.split(':');
			return { name, status };
		});
		expect(tradableFirst(entries).map((entry) => entry.name)).toEqual(['MMM', 'ZZZ', 'AAA', 'BBB']);
	});

	it('names an order by its time (UTC), whole ID, side, type, quantity and price with coins', () => {
		const order = {
			orderId: '1470000000000000123',
			symbol: 'ETHUSDT',
			side: 'SELL',
			type: 'LIMIT',
			origQty: '0.50',
			price: '3500',
			time: String(Date.UTC(2026, 10, 27, 7, 12, 5)),
		};
		const coins = { base: 'ETH', quote: 'USDT' };
		expect(orderEntryName(order, coins)).toBe(
			'2026-11-27 07:12 UTC · 1470000000000000123 · SELL 0.5 ETH @ 3500 USDT',
		);
		expect(orderEntryName(order)).toBe(
			'2026-11-27 07:12 UTC · 1470000000000000123 · ETHUSDT SELL 0.5 @ 3500',
		);
		expect(orderEntryName({ ...order, type: 'LIMIT_MAKER' }, coins)).toBe(
			'2026-11-27 07:12 UTC · 1470000000000000123 · SELL 0.5 ETH @ 3500 USDT maker only',
		);
		expect(orderEntryName({ ...order, type: 'MARKET', time: undefined }, coins)).toBe(
			'1470000000000000123 · SELL 0.5 ETH at market',
		);
		expect(orderEntryName({ ...order, type: 'STOP_LIMIT' }, coins)).toBe(
			'2026-11-27 07:12 UTC · 1470000000000000123 · SELL 0.5 ETH @ 3500 USDT STOP_LIMIT',
		);
	});

	it('reads a time in ms, as a number or its digits; nothing else', () => {
		expect(utcTime(0)).toBeUndefined();
		expect(utcTime('abc')).toBeUndefined();
		expect(utcTime(1.5)).toBeUndefined();
		expect(utcTime(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02 03:04 UTC');
		expect(utcTime(String(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe('2026-01-02 03:04 UTC');
	});
});
