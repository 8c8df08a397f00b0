/** control.ts: reset() puts balances, records, ledger, faults and budgets back to the start. */
import { useSandboxClients } from '../support/sandbox';
import { move } from './support';

// The real clock and the default rate limit: reset() must bring both back.
const { sandbox, master } = useSandboxClients({});

describe('reset()', () => {
	it('restores balances, clears records, ledger, faults and budgets', async () => {
		await master().transfer(move);
		sandbox().setFaults({ clockOffsetMs: 99_000, rules: [{ kind: 'http500', times: 5 }] });
		sandbox().setRateLimit({ windowMs: 60_000, maxWeight: 1 });
		sandbox().reset();
		expect(sandbox().getBalance('10001', 'USDT')).toBe('100000');
		expect(sandbox().ledger.requests).toHaveLength(0);
		expect(sandbox().ledger.transfers).toHaveLength(0);
		expect(Math.abs(sandbox().now() - Date.now())).toBeLessThan(1000);
		const r = await master().history({ flowType: 51, startTime: 0, endTime: sandbox().now() });
		expect(r.status).toBe(200);
		expect(r.json).toEqual([]);
	});
});
