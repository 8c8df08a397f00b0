/**
 * pipeline.ts, the createLate fault: 400 -1146 at once with nothing placed, the request processed
 * `delayMs` real milliseconds later as it would have been (ledger.orders included), a refusal at
 * that moment dropped, a refusal by the gateway answered as usual; reset() and stop() drop what
 * still waits.
 */
import { DEMO_KEYS, startSandbox } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { useSandboxClients } from '../support/sandbox';
import { BATCH, ORDER, T0, buy, limit } from './support';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const late = (path: string, delayMs?: number) =>
	sandbox().setFaults({ rules: [{ kind: 'createLate', times: 1, path, delayMs }] });
const TIMEOUT = { code: '-1146', msg: 'Order creation timeout' };

describe('createLate', () => {
	it('a single order: -1146 at once and nothing placed; placed delayMs later, ledger entry included', async () => {
		late(ORDER, 1000);
		const r = await master().order(buy('late-1'));
		expect([r.status, r.json]).toEqual([400, TIMEOUT]);
		expect(sandbox().ledger.orders).toEqual([]);
		expect((await master().openOrders()).json).toEqual([]);
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('0');
		expect(sandbox().ledger.requests[0]).toMatchObject({
			path: ORDER,
			status: 400,
			code: '-1146',
			fault: 'createLate',
		});
		expect(sandbox().ledger.requests[0].appliedStatus).toBeUndefined();

		await sleep(1500);
		const open = (await master().openOrders()).json as Array<{ clientOrderId: string }>;
		expect(open.map((o) => o.clientOrderId)).toEqual(['late-1']);
		expect(sandbox().ledger.orders.map((o) => [o.clientOrderId, o.via])).toEqual([
			['late-1', 'single'],
		]);
		expect(sandbox().getBalanceDetail('10001', 'USDT').locked).toBe('20000');
		expect(sandbox().ledger.requests[0].appliedStatus).toBe(200);
		// the client order ID is now held: a re-send is a duplicate
		expect((await master().order(buy('late-1'))).json.code).toBe('-1141');
	});

	it('a batch: -1146 at once, every order placed later', async () => {
		late(BATCH, 800);
		const r = await master().batch([limit('b1'), limit('b2')]);
		expect([r.status, r.json]).toEqual([400, TIMEOUT]);
		expect(sandbox().ledger.orders).toEqual([]);
		await sleep(1300);
		expect(sandbox().ledger.orders.map((o) => [o.clientOrderId, o.via])).toEqual([
			['b1', 'batch'],
			['b2', 'batch'],
		]);
	});

	it('a refusal at the later moment is dropped: nothing placed, the late status kept in appliedStatus', async () => {
		late(ORDER, 800);
		expect((await master().order(buy('dup'))).json).toEqual(TIMEOUT);
		// the client re-sends at once: this one is placed and holds the client order ID
		expect((await master().order(buy('dup'))).status).toBe(200);
		await sleep(1300);
		expect(sandbox().ledger.orders).toHaveLength(1);
		expect(sandbox().ledger.requests[0].appliedStatus).toBe(400);
	});

	it('a request the gateway refuses (signature) is answered with that refusal and never processed', async () => {
		late(ORDER, 30);
		const r = await master().order(buy(), { mangleSignature: (s) => s.replace(/^./, 'x') });
		expect([r.status, r.json.code]).toEqual([400, '0002']);
		await sleep(60);
		expect(sandbox().ledger.orders).toEqual([]);
	});

	it('waits 8000 ms by default; reset() drops the late create', async () => {
		late(ORDER);
		expect((await master().order(buy())).json).toEqual(TIMEOUT);
		await sleep(100);
		expect(sandbox().ledger.orders).toEqual([]);
		sandbox().reset();
		expect(sandbox().ledger.orders).toEqual([]);
	});

	it('stop() drops the late create too', async () => {
		const sb = await startSandbox({ now: () => T0, rateLimit: false, requestRates: false });
		const client = new TestClient(sb.baseUrl, DEMO_KEYS.master, () => T0);
		sb.setFaults({ rules: [{ kind: 'createLate', times: 1, delayMs: 40 }] });
		expect((await client.order(buy())).json).toEqual(TIMEOUT);
		await sb.stop();
		await sleep(80);
		expect(sb.ledger.orders).toEqual([]);
	});
});
