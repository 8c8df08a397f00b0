/**
 * A well-formed contract the exchange does not list (issue 49): every Futures read that sends a
 * Symbol reports the service's refusal (0201) with the futures hint, never the spot pair's
 * "e.g. BTCUSDT", which the node's own contract check would then refuse.
 */
import { errorOf } from '../../../support/runs';
import { useSandbox } from '../../../support/sandbox';
import { FUTURES, picked, runFutures } from './support';

const sandbox = useSandbox();
const UNLISTED = 'DOGEUSDT-PERPETUAL';

describe('Futures: a contract the exchange does not list', () => {
	it.each([
		['getFundingRate', {}, FUTURES.fundingRate],
		['getFundingRateHistory', { returnAll: true }, FUTURES.historyFundingRate],
		['getFundingFees', {}, FUTURES.historyFundingFees],
		['getPositions', {}, FUTURES.positions],
		['getOrders', { orderStatus: 'open' }, FUTURES.openOrders],
		['getTrades', {}, FUTURES.userTrades],
		['getLeverage', {}, FUTURES.leverage],
		['getCommissionRate', {}, FUTURES.commissionRate],
	])(
		'%s: names the contract and Symbol, and points at the contract list',
		async (operation, extra, path) => {
			const run = await runFutures(sandbox(), operation, { symbol: picked(UNLISTED), ...extra });
			expect(run.requests.map((request) => request.path)).toEqual([path]);
			expect(run.error?.message).toBe(
				`Symbol: the exchange does not list the futures contract ${UNLISTED}`,
			);
			const description = run.error?.description ?? '';
			expect(description).toContain(`(code 0201)`);
			expect(description).toContain('Pick the contract from the Symbol list');
			expect(description).toContain('Futures › Get Funding Rate with Symbol empty');
			expect(description).toContain('e.g. BTCUSDT-PERPETUAL');
			expect(description).toContain('Nothing was executed.');
			// Not the spot pair's hint, which the contract check refuses.
			expect(description).not.toMatch(/e\.g\. BTCUSDT[^-]/);
		},
	);

	it('the advice the hint gives works: the spot-style name it used to suggest is refused before sending', async () => {
		const spot = await runFutures(sandbox(), 'getFundingRate', { symbol: picked('DOGEUSDT') });
		expect(spot.error?.message).toBe('Symbol: "DOGEUSDT" is not a futures contract');
		expect(spot.requests).toHaveLength(0);
	});

	it('with Continue On Fail, the item of each input carries the futures message', async () => {
		const run = await runFutures(
			sandbox(),
			'getLeverage',
			{ symbol: { __rl: true, mode: 'id', value: '={{ $json.contract }}' } },
			{
				continueOnFail: true,
				inputItems: [{ json: { contract: UNLISTED } }, { json: { contract: 'BTCUSDT-PERPETUAL' } }],
			},
		);
		expect(run.error).toBeUndefined();
		expect(errorOf(run.items[0])).toBe(
			`Symbol: the exchange does not list the futures contract ${UNLISTED}`,
		);
		expect(run.items[0].json.description).toContain('e.g. BTCUSDT-PERPETUAL');
		expect(run.items[1].json.symbolId).toBe('BTCUSDT-PERPETUAL');
	});

	it('other refusals keep their own text', async () => {
		sandbox().setFaults({
			rules: [{ path: FUTURES.leverage, kind: 'unknownBefore', code: '-1005', times: 1 }],
		});
		const run = await runFutures(sandbox(), 'getLeverage', { symbol: picked('BTCUSDT-PERPETUAL') });
		expect(run.error?.message).toBe('The API key is not allowed to do this');
	});
});
