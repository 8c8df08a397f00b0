/** demo.ts (seedDemo): the demo history a person sees first, kept across reset(). */
import { DEMO_KEYS, type HistoryRecord } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { useSandbox } from '../support/sandbox';

const sandbox = useSandbox({ seedDemo: true, now: () => 1_800_000_123_456, requestRates: false });

describe('seedDemo', () => {
	it('writes funding fees over 30 days, transfers, deposits, withdrawals and trades', async () => {
		const c = new TestClient(sandbox().baseUrl, DEMO_KEYS.master, () => sandbox().now());
		const q = (flowType: number, extra = {}) =>
			c.history({ flowType, startTime: 0, endTime: sandbox().now(), limit: 500, ...extra });
		const funding = (await q(32)).json as HistoryRecord[];
		expect(funding.length).toBe(180);
		expect(funding.every((r) => r.symbol && r.accountId === '10003')).toBe(true);
		const transfers = (await q(51)).json as HistoryRecord[];
		expect(transfers.length).toBe(10);
		expect(
			((await q(51, {})).json as HistoryRecord[]).filter((r) => r.accountId === '20001'),
		).toHaveLength(2);
		expect(((await q(900)).json as HistoryRecord[]).length).toBe(3);
		expect(((await q(904)).json as HistoryRecord[]).length).toBe(1);
		expect(((await q(906)).json as HistoryRecord[]).length).toBe(3);
		expect(((await q(910)).json as HistoryRecord[]).length).toBe(1);
		expect(((await q(1)).json as HistoryRecord[]).length).toBe(6);
		expect(((await q(2)).json as HistoryRecord[]).length).toBe(3);
		// reset() keeps the seeded demo when it was asked for at start
		sandbox().reset();
		expect(((await q(32)).json as HistoryRecord[]).length).toBe(180);
	});
});
