/**
 * http.ts: the weight budget per API key (RateLimiter): 429 0003 with Retry-After once it is spent,
 * per key, freed as the window moves; switched off and restored by reset().
 */
import { useSandboxClients } from '../support/sandbox';
import { serverTime } from './support';

// The start options of the rate limit are the defaults: no rateLimit option. The request rates
// (5 queries a second per key) are not what this file tests: off.
const { sandbox, master, sub } = useSandboxClients({ requestRates: false });
/** A weight-1 order far below the market: it rests, so only its weight counts. */
const placeCheap = () =>
	master().order({ symbol: 'BTCUSDT', side: 'BUY', type: 'LIMIT', quantity: '0.01', price: '1' });

const time = () => serverTime(sandbox());
const historyQ = () => ({ flowType: 32, startTime: 0, endTime: sandbox().now() });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('rate limit (weight budget per API key)', () => {
	it('answers 429 0003 with Retry-After once the weight budget is spent, per key, and frees up after the window', async () => {
		sandbox().setRateLimit({ windowMs: 1000, maxWeight: 12 });
		expect((await master().history(historyQ())).status).toBe(200); // 5
		expect((await master().history(historyQ())).status).toBe(200); // 10
		const over = await master().history(historyQ()); // 15 > 12
		expect(over.status).toBe(429);
		expect(over.json).toEqual({ code: '0003', msg: 'Rate limit exceeded' });
		expect(over.headers['retry-after']).toBe('1');
		// weight 1 requests still fit: 11, 12
		expect((await placeCheap()).status).toBe(200);
		expect((await placeCheap()).status).toBe(200);
		expect((await placeCheap()).status).toBe(429);
		// another key has its own budget; public /time is not counted
		expect((await sub().history(historyQ())).status).toBe(200);
		expect((await time()).status).toBe(200);
		expect(
			sandbox()
				.ledger.requests.filter((r) => r.status === 429)
				.map((r) => r.code),
		).toEqual(['0003', '0003']);
		await sleep(1050);
		expect((await master().history(historyQ())).status).toBe(200);
	});

	it('Retry-After counts the seconds until enough weight leaves the window', async () => {
		sandbox().setRateLimit({ windowMs: 5000, maxWeight: 5 });
		expect((await master().history(historyQ())).status).toBe(200);
		const r = await master().history(historyQ());
		expect(r.status).toBe(429);
		expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(4);
		expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(5);
	});

	it('defaults to 6000 weight per 60 s, can be switched off, and reset() restores the start option', async () => {
		sandbox().setRateLimit({ windowMs: 60_000, maxWeight: 5 });
		await master().history(historyQ());
		expect((await master().history(historyQ())).status).toBe(429);
		sandbox().setRateLimit(false);
		for (let i = 0; i < 5; i++) expect((await master().history(historyQ())).status).toBe(200);
		sandbox().reset(); // back to the default budget of 6000
		for (let i = 0; i < 5; i++) expect((await master().history(historyQ())).status).toBe(200);
	});
});

describe('UAE rule: least interval between transfers of one key (once per second)', () => {
	const move = { fromAccountId: '10001', toAccountId: '10005', coin: 'USDT', quantity: '1' };

	it('a second transfer of a key within 1 s is answered 429 0003 and not applied; another key, or after 1 s, goes through', async () => {
		expect((await master().transfer(move)).status).toBe(200);
		const soon = await master().transfer(move);
		expect(soon.status).toBe(429);
		expect(soon.json).toEqual({ code: '0003', msg: 'Rate limit exceeded' });
		expect(soon.headers['retry-after']).toBe('1');
		// The sub key has its own second (it may not transfer: refused for its permission, not its pace).
		expect((await sub().transfer(move)).status).not.toBe(429);
		expect(sandbox().ledger.transfers).toHaveLength(1);
		await sleep(1010);
		expect((await master().transfer(move)).status).toBe(200);
		// A refused call does not restart the second: the accepted one it follows does.
		expect(sandbox().ledger.transfers).toHaveLength(2);
	});

	it('off with the rate limit, or with intervals: false', async () => {
		sandbox().setRateLimit({ windowMs: 60_000, maxWeight: 6000, intervals: false });
		for (let i = 0; i < 3; i++) expect((await master().transfer(move)).status).toBe(200);
		sandbox().setRateLimit(false);
		for (let i = 0; i < 3; i++) expect((await master().transfer(move)).status).toBe(200);
	});
});
