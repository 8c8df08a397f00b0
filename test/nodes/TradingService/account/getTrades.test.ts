import { DEMO_KEYS } from '../../../../sandbox';
import { requestsTo, runTradingService } from '../../../../tools/harness/node';
import { useSandbox } from '../../../support/sandbox';

const TRADES = '/api/v1/account/trades';
const HOUR = 60 * 60 * 1000;
const sandbox = useSandbox({ rateLimit: false, requestRates: false, symbolRules: 'lenient' });

const getTrades = (overrides: Record<string, unknown> = {}) => ({
	resource: 'account',
	operation: 'getTrades',
	startTime: new Date(Date.now() - 6 * HOUR).toISOString(),
	endTime: new Date(Date.now()).toISOString(),
	...overrides,
});
const v2 = { typeVersion: 2 };
/** The query string of each request to the trade list, as sent. */
const queriesSent = (since = 0) =>
	requestsTo(sandbox(), TRADES, since).map((request) => new URLSearchParams(request.query));

describe('Account > Get Trades (version 2)', () => {
	it('Return All pages through a range larger than one request: every fill once, newest first, exact', async () => {
		const seeded = sandbox().seedTrades({
			count: 2300,
			startTime: Date.now() - 5 * HOUR,
			endTime: Date.now() - HOUR,
			symbols: ['BTCUSDT', 'ETHUSDT'],
		});
		const run = await runTradingService(sandbox(), {
			parameters: getTrades({ returnAll: true }),
			node: v2,
		});
		expect(run.error).toBeUndefined();
		const newestFirst = [...seeded].sort((a, b) => (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
		// The exchange's records as it sent them: decimals and IDs as text, nothing rounded; and
		// the account the node asked for, which a fill does not carry.
		expect(run.items.map((item) => item.json)).toEqual(
			newestFirst.map((fill) => ({ ...fill, accountId: '10001' })),
		);
		const sent = queriesSent();
		expect(sent).toHaveLength(3);
		expect(sent.map((query) => query.get('limit'))).toEqual(['1000', '1000', '1000']);
		expect(sent[0].get('toId')).toBeNull();
		for (const query of sent) expect(query.get('accountId')).toBe('10001');
		expect(sent[1].get('toId')).toBe(newestFirst[999].id);
		expect(sent[2].get('toId')).toBe(newestFirst[1999].id);
		for (const query of sent) expect(query.get('signature')).toMatch(/^[0-9a-f]{64}$/);
	});

	it('gives the fee and fee coin of a real fill: a MARKET order by Amount, placed through version 2', async () => {
		const placed = await runTradingService(sandbox(), {
			parameters: {
				resource: 'order',
				operation: 'create',
				symbol: { __rl: true, mode: 'list', value: 'BTCUSDT' },
				side: 'BUY',
				type: 'MARKET',
				marketOrderBy: 'amount',
				amount: '100',
			},
			node: v2,
		});
		expect(placed.error).toBeUndefined();
		expect(placed.items[0].json.outcome).toBe('placed');
		const run = await runTradingService(sandbox(), {
			parameters: getTrades({ symbol: { __rl: true, mode: 'list', value: 'BTCUSDT' }, limit: 10 }),
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(1);
		const fill = run.items[0].json;
		expect(fill).toMatchObject({
			orderId: placed.items[0].json.orderId,
			symbol: 'BTCUSDT',
			isBuyer: true,
			isMaker: false,
			price: expect.stringMatching(/^\d+(\.\d+)?$/),
			qty: expect.stringMatching(/^\d+(\.\d+)?$/),
			commission: expect.stringMatching(/^\d+(\.\d+)?$/),
			commissionAsset: expect.stringMatching(/^[A-Z]+$/),
		});
		const [query] = queriesSent();
		expect(query.get('symbol')).toBe('BTCUSDT');
		expect(query.get('limit')).toBe('10');
	});

	it('Limit is one request for the newest fills', async () => {
		const seeded = sandbox().seedTrades({
			count: 30,
			startTime: Date.now() - 3 * HOUR,
			endTime: Date.now() - HOUR,
		});
		const run = await runTradingService(sandbox(), {
			parameters: getTrades({ returnAll: false, limit: 7 }),
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.map((item) => item.json.id)).toEqual(
			seeded
				.map((trade) => trade.id)
				.sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : -1))
				.slice(0, 7),
		);
		expect(queriesSent()).toHaveLength(1);
	});

	it('takes the Symbol from an expression in the picker', async () => {
		sandbox().seedTrades({
			count: 40,
			startTime: Date.now() - 3 * HOUR,
			endTime: Date.now() - HOUR,
			symbols: ['BTCUSDT', 'ETHUSDT'],
		});
		const run = await runTradingService(sandbox(), {
			parameters: getTrades({
				symbol: { __rl: true, mode: 'id', value: '={{ $json.pair }}' },
				returnAll: true,
			}),
			inputItems: [{ json: { pair: 'ETHUSDT' } }],
			node: v2,
		});
		expect(run.error).toBeUndefined();
		expect(run.items.length).toBeGreaterThan(0);
		expect(new Set(run.items.map((item) => item.json.symbol))).toEqual(new Set(['ETHUSDT']));
		expect(queriesSent()[0].get('symbol')).toBe('ETHUSDT');
	});

	it('refuses a Start older than the 30 days the exchange keeps, before sending anything', async () => {
		const run = await runTradingService(sandbox(), {
			parameters: getTrades({ startTime: new Date(Date.now() - 31 * 24 * HOUR).toISOString() }),
			node: v2,
		});
		expect(run.error?.message).toMatch(/^Start: .* is more than 30 days ago/);
		expect(run.error?.description).toMatch(/Pick a Start after/);
		expect(queriesSent()).toHaveLength(0);
	});

	it('refuses an End before the Start, and a Limit out of range, before sending anything', async () => {
		const backwards = await runTradingService(sandbox(), {
			parameters: getTrades({
				startTime: new Date(Date.now() - HOUR).toISOString(),
				endTime: new Date(Date.now() - 2 * HOUR).toISOString(),
			}),
			node: v2,
		});
		expect(backwards.error?.message).toMatch(/^End: is before Start/);
		const tooMany = await runTradingService(sandbox(), {
			parameters: getTrades({ limit: 1001 }),
			node: v2,
		});
		expect(tooMany.error?.message).toMatch(/Limit/);
		expect(queriesSent()).toHaveLength(0);
	});

	it("lists the sub key's own fills only", async () => {
		sandbox().seedTrades({
			count: 5,
			startTime: Date.now() - 3 * HOUR,
			endTime: Date.now() - 2 * HOUR,
			key: DEMO_KEYS.sub,
		});
		sandbox().seedTrades({ count: 3, startTime: Date.now() - HOUR, endTime: Date.now() - 1000 });
		const run = await runTradingService(sandbox(), {
			parameters: getTrades({ returnAll: true }),
			node: v2,
			key: DEMO_KEYS.sub,
		});
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(5);
	});
});
