/**
 * futures/futures.ts with stream/events.ts and stream/hub.ts: every position change (each futures
 * fill, opening, adding, reducing, closing) sends one `outboundContractPositionInfo` to the listen
 * keys of the futures account owner's keys (master and read-only) and to no one else (the sub
 * key's stream); a funding settlement changes no position and sends none; the REST state already
 * shows what the event says.
 */
import { DEMO_KEYS } from '../../../sandbox';
import { useSandboxClients } from '../../support/sandbox';
import { T0 } from '../support';
import { newListenKey, sleep, streamClients, type Json } from '../streamSupport';

let clock = T0 + 1000;
beforeEach(() => {
	clock = T0 + 1000;
});
const { sandbox, master, sub } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
});
const { open } = streamClients();
const BTC = 'BTCUSDT-PERPETUAL';
const positionEvents = (events: Json[]) =>
	events.filter((e: Json) => e.e === 'outboundContractPositionInfo');

describe('outboundContractPositionInfo', () => {
	it('one event per fill, in the documented shape, to the owner’s keys only', async () => {
		const ws = await open(sandbox().stream.url(await newListenKey(master())));
		const ro = master().withCredentials(DEMO_KEYS.readOnly);
		const roWs = await open(sandbox().stream.url(await newListenKey(ro)));
		const subWs = await open(sandbox().stream.url(await newListenKey(sub())));
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.5', price: '50000' });
		// the order's contractExecutionReports (NEW, FILLED) come first
		const [opened] = positionEvents(await ws.eventsAtLeast(3));
		expect(opened).toEqual({
			e: 'outboundContractPositionInfo',
			E: String(T0 + 1000),
			A: '10003',
			s: BTC,
			S: 'LONG',
			p: '50000',
			P: '0.5',
			f: '41250',
			m: '5000',
			r: '-15',
			up: '0',
			pr: '0',
			pv: '25000',
			v: '5',
			mt: 'ISOLATED',
		});
		const r = await master().call({ method: 'GET', path: '/api/v2/futures/positions', query: {} });
		expect(r.json[0]).toMatchObject({ baseQty: opened.P, avgPrice: opened.p, margin: opened.m });
		expect(positionEvents(await roWs.eventsAtLeast(3))).toEqual([opened]);
		clock += 1;
		sandbox().futures.fill({ symbol: BTC, side: 'SELL', quantity: '0.5', price: '50000' });
		const events = positionEvents(await ws.eventsAtLeast(6));
		expect(events).toHaveLength(2);
		expect(events[1]).toMatchObject({ P: '0', p: '0', m: '0', r: '-30', pv: '0' });
		await sleep(50);
		expect(subWs.events).toEqual([]);
	});

	it('each message is one event in an array; a funding settlement sends no position event', async () => {
		const ws = await open(sandbox().stream.url(await newListenKey(master())));
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', quantity: '0.1', price: '50000' });
		await ws.eventsAtLeast(1);
		expect(ws.messages.filter((m: Json) => Array.isArray(m))[0]).toHaveLength(1);
		clock = T0 + 2 * 8 * 3_600_000;
		sandbox().futures.settleNow();
		expect(sandbox().getBalance('10003', 'USDT')).not.toBe('50000');
		await sleep(50);
		expect(positionEvents(ws.events)).toHaveLength(1);
	});

	it('a placed resting order changes no position and sends only its NEW report; its fill does', async () => {
		const ws = await open(sandbox().stream.url(await newListenKey(master())));
		const o = sandbox().futures.placeOpenOrder({
			symbol: BTC,
			side: 'BUY',
			quantity: '0.2',
			price: '49000',
		});
		await sleep(50);
		expect(ws.events).toEqual([
			expect.objectContaining({ e: 'contractExecutionReport', i: o.orderId, X: 'NEW' }),
		]);
		sandbox().futures.fill({ symbol: BTC, side: 'BUY', orderId: o.orderId, quantity: '0.1' });
		const [e] = positionEvents(await ws.eventsAtLeast(3));
		expect(e).toMatchObject({ P: '0.1', p: '49000' });
	});
});
