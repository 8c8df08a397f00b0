/**
 * The "every contract" reads spend one request per contract: at the exchange's documented rates
 * (5 query requests a second per key, enforced by the sandbox here) the transport paces them, so
 * none is refused, however many items ask at once.
 */
import type { LedgerRequest } from '../../../../sandbox';
import { useSandbox } from '../../../support/sandbox';
import { BTC, CONTRACTS, FUTURES, runFutures } from './support';

const sandbox = useSandbox({ rateLimit: false, symbolRules: 'lenient' });
const iso = (ms: number) => new Date(ms).toISOString();

/** The most requests of one key that fall within any one second (server clock). */
function busiestSecond(requests: LedgerRequest[]): number {
	const times = requests.map((request) => request.at).sort((a, b) => a - b);
	let most = 0;
	for (let first = 0, last = 0; last < times.length; last++) {
		while (times[last] - times[first] >= 1000) first++;
		most = Math.max(most, last - first + 1);
	}
	return most;
}

describe('Futures: requests within the key’s 5 query requests a second', () => {
	it('Get Funding Rate of every contract for three items: 13 requests, none refused', async () => {
		expect(sandbox().requestRates()).toMatchObject({ queryPerSecond: 5 });
		const run = await runFutures(
			sandbox(),
			'getFundingRate',
			{},
			{
				inputItems: [{ json: {} }, { json: {} }, { json: {} }],
			},
		);
		expect(run.error).toBeUndefined();
		expect(run.items).toHaveLength(3 * CONTRACTS.length);
		expect(run.requests).toHaveLength(1 + 3 * CONTRACTS.length);
		expect(run.requests.every((request) => request.status === 200)).toBe(true);
		expect(busiestSecond(run.requests)).toBeLessThanOrEqual(5);
		expect(sandbox().rateLimitStats().rateLimited).toBe(0);
	}, 20_000);

	it('Get Funding Fees of every contract, with a position held: none refused', async () => {
		const start = sandbox().now();
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.01' });
		const run = await runFutures(
			sandbox(),
			'getFundingFees',
			{ startTime: iso(start - 86_400_000), endTime: iso(start + 1000), returnAll: true },
			{ inputItems: [{ json: {} }, { json: {} }] },
		);
		expect(run.error).toBeUndefined();
		expect(
			run.requests.filter((request) => request.path === FUTURES.historyFundingFees),
		).toHaveLength(2 * CONTRACTS.length);
		expect(run.requests.every((request) => request.status === 200)).toBe(true);
		expect(busiestSecond(run.requests)).toBeLessThanOrEqual(5);
		expect(sandbox().rateLimitStats().rateLimited).toBe(0);
	}, 20_000);
});
