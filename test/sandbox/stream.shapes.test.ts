/**
 * stream/hub.ts `setEventShape`: the shapes the UAE documentation gives, sent on request so the
 * node's readings can be proven (contractExecutionReport without `z`, outboundContractAccountInfo
 * without `l`, an unnamed order update, the maker flag as text, the account in `a`, a master key's
 * listen key carrying its sub accounts' events); strict about the values it takes; reset() restores
 * the family's spot shapes.
 */
import { DEMO_ACCOUNTS, DEMO_KEYS } from '../../sandbox';
import { useSandboxClients } from '../support/sandbox';
import { T0 } from './support';
import { newListenKey, sleep, streamClients, type Json } from './streamSupport';

let clock = T0;
beforeEach(() => {
	clock = T0;
});
const { sandbox, master } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});
const { open } = streamClients();

async function masterStream() {
	const key = await newListenKey(master());
	return open(sandbox().stream.url(key));
}

function seed(key = DEMO_KEYS.master, price = '100'): string {
	return sandbox().seedOpenOrder({
		key,
		symbol: 'BTCUSDT',
		side: 'BUY',
		price,
		quantity: '0.01',
		clientOrderId: 'signal-7',
		time: clock,
	}).orderId;
}

const orderEvents = (events: Json[]) =>
	events.filter((event) => event.i !== undefined && event.X !== undefined);

describe('stream event shapes', () => {
	it('contract: contractExecutionReport without z, reqAmt, lo, lt (q less r is what filled); balances without l', async () => {
		sandbox().stream.setEventShape({ orders: 'contract', balances: 'contract' });
		const ws = await masterStream();
		const orderId = seed();
		sandbox().fillOrder(orderId, '0.004');
		const events = await ws.until(() => {
			const got = ws.events;
			// The fill's report, its ticket, then the balances it moved.
			return got.filter((event) => event.e === 'outboundContractAccountInfo').length >= 2
				? got
				: undefined;
		});
		const report = orderEvents(events).find((event) => event.X === 'PARTIALLY_FILLED');
		expect(report.e).toBe('contractExecutionReport');
		for (const field of ['z', 'reqAmt', 'lo', 'lt']) expect(report).not.toHaveProperty(field);
		expect([report.q, report.r, report.l]).toEqual(['0.01', '0.006', '0.004']);
		const balance = events.find((event) => event.e === 'outboundContractAccountInfo');
		expect(balance.B.length).toBeGreaterThan(0);
		for (const line of balance.B) {
			expect(Object.keys(line).sort()).toEqual(['a', 'f']);
		}
		// ticketInfo is left as it is.
		expect(events.some((event) => event.e === 'ticketInfo')).toBe(true);
	});

	it('unnamed order updates, the maker flag as text and the account in a', async () => {
		sandbox().stream.setEventShape({ orders: 'unnamed', makerFlag: 'text', accountField: true });
		const ws = await masterStream();
		const orderId = seed();
		sandbox().fillOrder(orderId);
		const events = await ws.until(() => {
			const got = orderEvents(ws.events);
			return got.some((event) => event.X === 'FILLED') ? got : undefined;
		});
		const filled = events.find((event) => event.X === 'FILLED');
		expect(filled.e).toBe('');
		expect(['true', 'false']).toContain(filled.m);
		expect(filled.a).toBe(DEMO_ACCOUNTS.mainTrading);
	});

	it('subAccountEvents: a master key’s listen key also carries the sub account’s events; by default it does not', async () => {
		const plain = await masterStream();
		const first = seed(DEMO_KEYS.sub, '101');
		sandbox().fillOrder(first);
		await sleep(200);
		expect(orderEvents(plain.events)).toEqual([]);
		sandbox().stream.setEventShape({ subAccountEvents: true, accountField: true });
		const second = seed(DEMO_KEYS.sub, '102');
		sandbox().fillOrder(second);
		const events = await plain.until(() => {
			const got = orderEvents(plain.events);
			return got.some((event) => event.X === 'FILLED') ? got : undefined;
		});
		expect(events.every((event) => event.a === DEMO_ACCOUNTS.subTrading)).toBe(true);
		expect(events.map((event) => event.i)).toContain(second);
	});

	it('refuses a value it does not know; reset() restores the spot shapes', async () => {
		const stream = sandbox().stream;
		expect(() => stream.setEventShape({ orders: 'futures' as never })).toThrow(/orders/);
		expect(() => stream.setEventShape({ accountField: 'yes' as never })).toThrow(/accountField/);
		stream.setEventShape({ orders: 'contract', balances: 'contract', makerFlag: 'text' });
		sandbox().reset();
		const ws = await masterStream();
		const orderId = seed();
		sandbox().fillOrder(orderId);
		const events = await ws.until(() => {
			const got = orderEvents(ws.events);
			return got.some((event) => event.X === 'FILLED') ? got : undefined;
		});
		const filled = events.find((event) => event.X === 'FILLED');
		expect(filled.e).toBe('executionReport');
		expect(filled.z).toBe('0.01');
		expect(typeof filled.m).toBe('boolean');
		expect(filled).not.toHaveProperty('a');
	});
});
