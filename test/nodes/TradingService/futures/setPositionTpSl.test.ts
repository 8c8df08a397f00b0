import { runCounting } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { MARK, WRITE_PATHS, openLong, queryOf, sent } from './futuresWritesSupport';
import { BTC, ETH, jsonOf, runFutures } from './support';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });
const { tradingStop: TRADING_STOP, positions: POSITIONS } = WRITE_PATHS;

const position = async () =>
	jsonOf(await runFutures(sandbox(), 'getPositions', { symbol: BTC }))[0] ?? {};

beforeEach(() => sandbox().futures.setMarkPrice(BTC, MARK));

describe('Futures > Set Position TP/SL', () => {
	it('sets take profit and stop loss of the LONG position: one POST of weight 3, side LONG; the position shows them', async () => {
		openLong(sandbox());
		const run = await runFutures(sandbox(), 'setPositionTpSl', {
			symbol: BTC,
			takeProfitPrice: '66000',
			stopLossPrice: '57000',
			stopLossTriggerBy: 'MARK_PRICE',
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)).toEqual([
			{
				outcome: 'placed',
				symbol: BTC,
				side: 'LONG',
				takeProfit: '66000',
				tpTriggerBy: 'CONTRACT_PRICE',
				stopLoss: '57000',
				slTriggerBy: 'MARK_PRICE',
			},
		]);
		const [post] = sent(run.requests, TRADING_STOP, 'POST');
		expect(post.weight).toBe(3);
		expect(queryOf(post).get('side')).toBe('LONG');
		expect(await position()).toMatchObject({ takeProfit: '66000', stopLoss: '57000' });
	});

	it('a stop loss alone: no take profit sent', async () => {
		openLong(sandbox());
		const run = await runFutures(sandbox(), 'setPositionTpSl', {
			symbol: BTC,
			stopLossPrice: '58000',
		});
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'placed', stopLoss: '58000' });
		const query = queryOf(sent(run.requests, TRADING_STOP, 'POST')[0]);
		expect([query.has('takeProfit'), query.has('tpTriggerBy')]).toEqual([false, false]);
	});

	it('no position: the service’s -1149 said with the field and the fix, outcome rejected', async () => {
		const run = await runFutures(
			sandbox(),
			'setPositionTpSl',
			{ symbol: BTC, takeProfitPrice: '66000' },
			{ continueOnFail: true },
		);
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'rejected',
			error: `Symbol: ${BTC} has no LONG position to set a take profit or stop loss on`,
		});
	});

	it.each([
		['neither price', {}, 'Take Profit Price: is empty, and so is Stop Loss Price'],
		[
			'a take profit under the stop loss',
			{ takeProfitPrice: '57000', stopLossPrice: '66000' },
			'Take Profit Price: 57000 is not above Stop Loss Price 66000',
		],
		[
			'a malformed price',
			{ stopLossPrice: '58,000' },
			'Stop Loss Price: "58,000" is not a decimal number',
		],
		[
			'a spot pair',
			{ symbol: 'BTCUSDT', stopLossPrice: '58000' },
			'Symbol: "BTCUSDT" is not a futures contract',
		],
		[
			'a contract not in Allowed Contracts',
			{ stopLossPrice: '58000', guardrails: { allowedContracts: ETH } },
			`Symbol: ${BTC} is not in Allowed Contracts (${ETH})`,
		],
	])('bad input (%s): refused before any request', async (_case, parameters, message) => {
		const run = await runFutures(
			sandbox(),
			'setPositionTpSl',
			{ symbol: BTC, ...parameters },
			{ continueOnFail: true },
		);
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'rejected', error: message });
		expect(run.requests).toHaveLength(0);
	});

	it('a lost answer: the position read back shows the TP/SL, so placed; sent once', async () => {
		openLong(sandbox());
		sandbox().setFaults({
			rules: [{ kind: 'dropAfter', times: 1, path: TRADING_STOP, method: 'POST' }],
		});
		const run = await runFutures(sandbox(), 'setPositionTpSl', {
			symbol: BTC,
			takeProfitPrice: '65000.5',
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'placed', confirmedByLookup: true });
		expect(sent(run.requests, TRADING_STOP, 'POST')).toHaveLength(1);
		expect(sent(run.requests, POSITIONS, 'GET')).toHaveLength(1);
	});

	it('a request lost before it was applied: not on the position once no attempt can be applied, so sent once more', async () => {
		openLong(sandbox());
		sandbox().setFaults({
			rules: [{ kind: 'unknownBefore', times: 1, path: TRADING_STOP, method: 'POST' }],
		});
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'futures',
				operation: 'setPositionTpSl',
				symbol: BTC,
				stopLossPrice: '59000',
			},
			node: { typeVersion: 2 },
			credentials: { recvWindow: 1500 },
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'placed', stopLoss: '59000' });
		expect(sent(run.requests, TRADING_STOP, 'POST')).toHaveLength(2);
		expect(await position()).toMatchObject({ stopLoss: '59000' });
	});

	it('a request lost before it was applied, its price already on the position: the leg not sent must read empty (setting replaces both), so it is sent once more', async () => {
		openLong(sandbox());
		await runFutures(sandbox(), 'setPositionTpSl', {
			symbol: BTC,
			takeProfitPrice: '66000',
			stopLossPrice: '57000',
		});
		sandbox().setFaults({
			rules: [{ kind: 'unknownBefore', times: 1, path: TRADING_STOP, method: 'POST' }],
		});
		const run = await runCounting(sandbox(), {
			parameters: {
				resource: 'futures',
				operation: 'setPositionTpSl',
				symbol: BTC,
				stopLossPrice: '57000',
			},
			node: { typeVersion: 2 },
			credentials: { recvWindow: 1500 },
		});
		expect(run.error).toBeUndefined();
		expect(jsonOf(run)[0]).toMatchObject({ outcome: 'placed', stopLoss: '57000' });
		expect(sent(run.requests, TRADING_STOP, 'POST')).toHaveLength(2);
		expect(await position()).toMatchObject({ takeProfit: '', stopLoss: '57000' });
	});

	it('a lost answer settled by reading the position back: only the prices are confirmed, the item says the trigger sources are not', async () => {
		openLong(sandbox());
		sandbox().setFaults({
			rules: [{ kind: 'dropAfter', times: 1, path: TRADING_STOP, method: 'POST' }],
		});
		const run = await runFutures(sandbox(), 'setPositionTpSl', {
			symbol: BTC,
			stopLossPrice: '58000',
			stopLossTriggerBy: 'MARK_PRICE',
		});
		expect(jsonOf(run)[0]).toMatchObject({
			outcome: 'placed',
			confirmedByLookup: true,
			notConfirmed: expect.stringMatching(/trigger sources/),
		});
	});
});
