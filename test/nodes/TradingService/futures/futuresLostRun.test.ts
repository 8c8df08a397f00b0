/**
 * A killed worker's retry (issue 51): a run cut short after its write reached the exchange, then
 * the same execution run again with the ledger lost (mode `retry`, n8n's execution context carried
 * over, not the node's). Its re-send refused -1021 (timestamp outside the receive window: the sandbox
 * answers it before processing, nothing applied) must not be reported "rejected (nothing was
 * executed)" when the lost run applied the write: the setting or cancel is read back first, and a
 * refusal is read back too.
 */
import type { FaultRule } from '../../../../sandbox';
import { runCounting, type CountedRun } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { MARK, WRITE_PATHS, openLong, restingLimit, sent } from './futuresWritesSupport';
import { BTC, jsonOf } from './support';

const sandbox = useSandbox({ rateLimit: false, requestRates: false });

// Resting limits (below the mark) stay open.
beforeEach(() => sandbox().futures.setMarkPrice(BTC, MARK));

/** The sandbox refuses the next request to `path` with -1021, before processing it. */
const tooLate = (path: string, method: 'GET' | 'POST' | 'DELETE'): FaultRule => ({
	kind: 'unknownBefore',
	code: '-1021',
	times: 1,
	path,
	method,
});

/**
 * How the execution runs again: `retry` (from the Executions list: its lookups wait until the lost
 * run's requests can no longer be applied, 9 s) or `late` (a queue's re-delivery, long after the
 * execution started: no wait).
 */
const again = (lost: CountedRun, how: 'retry' | 'late') =>
	how === 'retry'
		? { lostRunOf: lost, mode: 'retry' as const }
		: { runtimeData: { version: 1, establishedAt: Date.now() - 30_000, source: 'webhook' } };

/** The lost run (its write applied), then the execution run again with its ledger gone. */
async function lostThenRetried(
	parameters: Record<string, unknown>,
	retryFaults: FaultRule[],
	how: 'retry' | 'late' = 'late',
): Promise<CountedRun> {
	const all = { resource: 'futures', ...parameters };
	const lost = await runCounting(sandbox(), { parameters: all, node: { typeVersion: 2 } });
	expect(lost.error).toBeUndefined();
	sandbox().setFaults({ rules: retryFaults });
	return await runCounting(sandbox(), {
		parameters: all,
		node: { typeVersion: 2 },
		continueOnFail: true,
		...again(lost, how),
	});
}

describe('Futures > Set Leverage after a lost run', () => {
	const parameters = { operation: 'setLeverage', symbol: BTC, leverage: 7 };

	it('the lost run set it: read back, placed with alreadyPlaced, nothing sent (a re-send would meet -1021)', async () => {
		const retry = await lostThenRetried(
			parameters,
			[tooLate(WRITE_PATHS.leverage, 'POST')],
			'retry',
		);
		expect(jsonOf(retry)).toEqual([
			{
				outcome: 'placed',
				symbol: BTC,
				leverage: '7',
				confirmedByLookup: true,
				alreadyPlaced: true,
			},
		]);
		expect(sent(retry.requests, WRITE_PATHS.leverage, 'POST')).toHaveLength(0);
	}, 30_000);

	it('the read-back before sending fails, the re-send is refused -1021: read back again, placed (alreadyPlaced), not rejected', async () => {
		const retry = await lostThenRetried(parameters, [
			tooLate(WRITE_PATHS.leverage, 'GET'),
			tooLate(WRITE_PATHS.leverage, 'POST'),
		]);
		expect(jsonOf(retry)[0]).toMatchObject({ outcome: 'placed', alreadyPlaced: true });
		const leverageRequests = retry.requests.filter((r) => r.path === WRITE_PATHS.leverage);
		expect(leverageRequests.map((r) => `${r.method} ${r.code ?? ''}`)).toEqual([
			'GET -1021',
			'POST -1021',
			'GET ',
		]);
	});

	it('the lost run did not set it (another leverage now): the -1021 refusal is the outcome, rejected', async () => {
		const lost = await runCounting(sandbox(), {
			parameters: { resource: 'futures', ...parameters },
			node: { typeVersion: 2 },
		});
		expect(lost.error).toBeUndefined();
		// Changed since: the lost run's leverage is not what the exchange holds.
		await runCounting(sandbox(), {
			parameters: { resource: 'futures', ...parameters, leverage: 3 },
			node: { typeVersion: 2 },
		});
		sandbox().setFaults({ rules: [tooLate(WRITE_PATHS.leverage, 'POST')] });
		const retry = await runCounting(sandbox(), {
			parameters: { resource: 'futures', ...parameters },
			node: { typeVersion: 2 },
			continueOnFail: true,
			...again(lost, 'late'),
		});
		expect(jsonOf(retry)[0]).toMatchObject({ outcome: 'rejected' });
		expect(String(jsonOf(retry)[0].error)).toMatch(/receive window/);
		expect(sent(retry.requests, WRITE_PATHS.leverage, 'POST')).toHaveLength(1);
	});
});

describe('Futures > Set Position TP/SL after a lost run', () => {
	const parameters = {
		operation: 'setPositionTpSl',
		symbol: BTC,
		takeProfitPrice: '66000',
		stopLossPrice: '57000',
	};

	it('the lost run set it: read back from the position, placed with alreadyPlaced, nothing sent', async () => {
		openLong(sandbox());
		const retry = await lostThenRetried(parameters, [tooLate(WRITE_PATHS.tradingStop, 'POST')]);
		expect(jsonOf(retry)[0]).toMatchObject({
			outcome: 'placed',
			takeProfit: '66000',
			stopLoss: '57000',
			alreadyPlaced: true,
		});
		expect(sent(retry.requests, WRITE_PATHS.tradingStop, 'POST')).toHaveLength(0);
	});

	it('the position read before sending fails, the re-send is refused -1021: read back again, placed (alreadyPlaced)', async () => {
		openLong(sandbox());
		const retry = await lostThenRetried(parameters, [
			tooLate(WRITE_PATHS.positions, 'GET'),
			tooLate(WRITE_PATHS.tradingStop, 'POST'),
		]);
		expect(jsonOf(retry)[0]).toMatchObject({ outcome: 'placed', alreadyPlaced: true });
		expect(sent(retry.requests, WRITE_PATHS.tradingStop, 'POST')).toHaveLength(1);
	});
});

describe('Futures > Cancel Many Orders after a lost run', () => {
	it('the lost run cancelled the contract’s orders: each page listed first, nothing left, placed (alreadyPlaced), no cancel sent', async () => {
		for (let i = 0; i < 3; i++) await restingLimit(sandbox());
		const retry = await lostThenRetried({ operation: 'cancelManyOrders', symbol: BTC }, [
			tooLate(WRITE_PATHS.cancelOrders, 'DELETE'),
		]);
		expect(retry.error).toBeUndefined();
		expect(jsonOf(retry)).toHaveLength(4);
		for (const item of jsonOf(retry))
			expect(item).toMatchObject({ outcome: 'placed', alreadyPlaced: true, stillOpen: 0 });
		expect(sent(retry.requests, WRITE_PATHS.cancelOrders, 'DELETE')).toHaveLength(0);
	});

	it('the open orders cannot be listed before any cancel: unknown (the lost run may have cancelled), not rejected', async () => {
		for (let i = 0; i < 3; i++) await restingLimit(sandbox());
		const retry = await lostThenRetried({ operation: 'cancelManyOrders', symbol: BTC }, [
			tooLate(WRITE_PATHS.openOrders, 'GET'),
		]);
		expect(jsonOf(retry)[0]).toMatchObject({ outcome: 'unknown' });
		expect(String(jsonOf(retry)[0].description)).toMatch(/may have cancelled/);
		expect(sent(retry.requests, WRITE_PATHS.cancelOrders, 'DELETE')).toHaveLength(0);
	});
});

describe('Futures > Cancel Order after a lost run', () => {
	it('the lost run cancelled it: found cancelled first, placed (alreadyPlaced), no cancel sent', async () => {
		const order = await restingLimit(sandbox());
		const retry = await lostThenRetried(
			{ operation: 'cancelOrder', orderId: order.orderId, orderType: 'LIMIT' },
			[tooLate(WRITE_PATHS.order, 'DELETE')],
			'retry',
		);
		expect(jsonOf(retry)[0]).toMatchObject({
			outcome: 'placed',
			cancelled: true,
			alreadyPlaced: true,
			orderId: order.orderId,
		});
		expect(sent(retry.requests, WRITE_PATHS.order, 'DELETE')).toHaveLength(0);
	}, 30_000);

	it('the lost run did not cancel it (refused): found open, the re-send refused -1021 and the order still open, rejected', async () => {
		const order = await restingLimit(sandbox());
		const parameters = {
			resource: 'futures',
			operation: 'cancelOrder',
			orderId: order.orderId,
			orderType: 'LIMIT',
		};
		sandbox().setFaults({ rules: [tooLate(WRITE_PATHS.order, 'DELETE')] });
		const lost = await runCounting(sandbox(), {
			parameters,
			node: { typeVersion: 2 },
			continueOnFail: true,
		});
		expect(jsonOf(lost)[0]).toMatchObject({ outcome: 'rejected' });
		sandbox().setFaults({ rules: [tooLate(WRITE_PATHS.order, 'DELETE')] });
		const retry = await runCounting(sandbox(), {
			parameters,
			node: { typeVersion: 2 },
			continueOnFail: true,
			...again(lost, 'late'),
		});
		expect(jsonOf(retry)[0]).toMatchObject({ outcome: 'rejected' });
		expect(String(jsonOf(retry)[0].error)).toMatch(/receive window/);
		expect(sent(retry.requests, WRITE_PATHS.order, 'DELETE')).toHaveLength(1);
		expect(
			sandbox()
				.futures.orders()
				.find((o) => o.orderId === order.orderId)?.status,
		).toBe('NEW');
	});

	it('the order cannot be looked up before sending: unknown, not sent, not rejected', async () => {
		const order = await restingLimit(sandbox());
		const retry = await lostThenRetried(
			{ operation: 'cancelOrder', orderId: order.orderId, orderType: 'LIMIT' },
			[tooLate(WRITE_PATHS.order, 'GET')],
		);
		expect(jsonOf(retry)[0]).toMatchObject({ outcome: 'unknown' });
		expect(sent(retry.requests, WRITE_PATHS.order, 'DELETE')).toHaveLength(0);
	});
});

describe('Futures > Close Position after a lost run', () => {
	const parameters = {
		operation: 'closePosition',
		symbol: BTC,
		closeAmount: 'percent',
		percent: 50,
	};

	it('the lost run closed half; the retry cannot read the position: unknown, not "nothing was executed", and nothing is sent', async () => {
		openLong(sandbox());
		const retry = await lostThenRetried(parameters, [
			{ ...tooLate(WRITE_PATHS.positions, 'GET'), times: 20 },
		]);
		const [item] = jsonOf(retry);
		expect(item.outcome).toBe('unknown');
		expect(String(item.description)).toContain('may have closed this position');
		expect(sent(retry.requests, WRITE_PATHS.order, 'POST')).toHaveLength(0);
		expect(sandbox().futures.positions()[0]?.baseQty).toBe('0.005');
	}, 60_000);
});
