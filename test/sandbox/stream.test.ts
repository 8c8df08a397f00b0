/**
 * stream/: the user data stream over real loopback HTTP and WebSocket. Listen keys (POST, PUT,
 * DELETE /api/v1/userDataStream: signed, weight 1, -1125, expiry on the sandbox clock closing the
 * sockets and refusing reconnects), and the events of the key's account: executionReport per order
 * change (NEW, PARTIALLY_FILLED, FILLED, CANCELED, PENDING_CANCEL), ticketInfo per fill,
 * outboundAccountInfo with only the coins that moved, the REST state already showing each change.
 */
import { DEMO_KEYS } from '../../sandbox';
import { useSandboxClients } from '../support/sandbox';
import { T0, buy, placeWith } from './support';
import { connect, newListenKey, sleep, streamClients, type Json } from './streamSupport';

const TTL = 10 * 60_000;
let clock = T0;
beforeEach(() => {
	clock = T0;
});
const { sandbox, master, sub } = useSandboxClients({
	now: () => clock,
	rateLimit: false,
	requestRates: false,
	listenKeyTtlMs: TTL,
});
const { open } = streamClients();
const place = placeWith(master);
const PATH = '/api/v1/userDataStream';

/** A listen key of the master key and an open socket on it. */
async function masterStream() {
	const key = await newListenKey(master());
	return { key, ws: await open(sandbox().stream.url(key)) };
}

describe('listen keys', () => {
	it('POST creates a 64-character alphanumeric key, signed like every private request, weight 1, in the ledger', async () => {
		const r = await master().createListenKey();
		expect(r.status).toBe(200);
		expect(Object.keys(r.json)).toEqual(['listenKey']);
		expect(r.json.listenKey).toMatch(/^[A-Za-z0-9]{64}$/);
		expect(sandbox().stream.stats().listenKeys).toEqual([r.json.listenKey]);
		const entry = sandbox().ledger.requests.at(-1)!;
		expect(entry).toMatchObject({ method: 'POST', path: PATH, status: 200, weight: 1 });
		expect(entry.apiKey).toBe(DEMO_KEYS.master.apiKey);
		// a second key is another key
		const second = await newListenKey(master());
		expect(second).not.toBe(r.json.listenKey);
		// any valid key may create one, the read-only one included
		const ro = master().withCredentials(DEMO_KEYS.readOnly);
		expect((await ro.createListenKey()).status).toBe(200);
	});

	it('refuses what the exchange refuses: no signature, a wrong one, no key, a stale timestamp, a wrong method', async () => {
		const unsigned = await master().createListenKey({ signatureIn: 'none' });
		expect([unsigned.status, unsigned.json.code]).toEqual([400, '0001']);
		const tampered = await master().createListenKey({
			mangleSignature: (s) => `${s.slice(0, -1)}${s.endsWith('0') ? '1' : '0'}`,
		});
		expect([tampered.status, tampered.json.code]).toEqual([400, '0002']);
		const other = master().withCredentials({ ...DEMO_KEYS.master, secret: 'wrong' });
		expect((await other.createListenKey()).json.code).toBe('0002');
		expect((await master().createListenKey({ apiKey: null })).json.code).toBe('0102');
		expect((await master().createListenKey({ timestamp: T0 - 60_000 })).json.code).toBe('-1021');
		const get = await master().call({ method: 'GET', path: PATH });
		expect([get.status, get.json.code]).toEqual([405, '-1020']);
		// nothing was created by any of them
		expect(sandbox().stream.stats().listenKeys).toEqual([]);
		const key = await newListenKey(master());
		const put = await master().keepAliveListenKey(key, { signatureIn: 'none' });
		expect([put.status, put.json.code]).toEqual([400, '0001']);
		const del = await master().deleteListenKey(key, { apiKey: null });
		expect(del.json.code).toBe('0102');
		expect(sandbox().stream.stats()).toMatchObject({ listenKeys: [key], keepAlives: 0 });
	});

	it('PUT keeps a key alive, DELETE ends it; both need listenKey, and a key not the caller’s own live one is -1125', async () => {
		const key = await newListenKey(master());
		const missing = await master().call({ method: 'PUT', path: PATH });
		expect([missing.status, missing.json.code]).toEqual([400, '0001']);
		expect(missing.json.msg).toMatch(/listenKey/);
		const empty = await master().call({ method: 'DELETE', path: PATH, query: { listenKey: '' } });
		expect([empty.status, empty.json.code]).toEqual([400, '0001']);
		const unknown = await master().keepAliveListenKey('x'.repeat(64));
		expect([unknown.status, unknown.json]).toEqual([
			400,
			{ code: '-1125', msg: 'This listenKey does not exist.' },
		]);
		// another API key's listen key: -1125, for the sub key and for the master's read-only key
		expect((await sub().keepAliveListenKey(key)).json.code).toBe('-1125');
		const ro = master().withCredentials(DEMO_KEYS.readOnly);
		expect((await ro.deleteListenKey(key)).json.code).toBe('-1125');
		const put = await master().keepAliveListenKey(key);
		expect([put.status, put.json]).toEqual([200, {}]);
		expect(sandbox().ledger.requests.at(-1)).toMatchObject({ method: 'PUT', weight: 1 });
		const del = await master().deleteListenKey(key);
		expect([del.status, del.json]).toEqual([200, {}]);
		expect((await master().keepAliveListenKey(key)).json.code).toBe('-1125');
		expect((await master().deleteListenKey(key)).json.code).toBe('-1125');
		expect(sandbox().stream.stats()).toMatchObject({
			listenKeys: [],
			deletedListenKeys: [key],
			keepAlives: 1,
		});
	});

	it('a key lives listenKeyTtlMs on the sandbox clock after its creation or last PUT; its expiry closes its sockets and refuses reconnects', async () => {
		const { key, ws } = await masterStream();
		clock = T0 + TTL - 1;
		expect((await master().keepAliveListenKey(key)).status).toBe(200);
		clock = T0 + 2 * TTL - 2;
		await sleep(400);
		expect(sandbox().stream.stats().connections).toBe(1);
		// the time passes: the periodic check closes the socket without any request
		clock = T0 + 2 * TTL - 1;
		const closed = await ws.closed;
		expect(closed.code).toBe(1000);
		expect(sandbox().stream.stats()).toMatchObject({ connections: 0, listenKeys: [] });
		expect((await master().keepAliveListenKey(key)).json.code).toBe('-1125');
		await expect(connect(sandbox().stream.url(key))).rejects.toThrow('HTTP 404');
	});

	it('DELETE closes the key’s sockets; an unknown key or another path is refused 404', async () => {
		const { key, ws } = await masterStream();
		const other = await open(sandbox().stream.url(await newListenKey(master())));
		await master().deleteListenKey(key);
		expect((await ws.closed).code).toBe(1000);
		expect(other.ws.readyState).toBe(other.ws.OPEN);
		await expect(connect(sandbox().stream.url(key))).rejects.toThrow('HTTP 404');
		await expect(connect(sandbox().stream.url('nope'))).rejects.toThrow('HTTP 404');
		const base = sandbox().baseUrl.replace('http', 'ws');
		await expect(connect(`${base}/quote/ws/v1`)).rejects.toThrow('HTTP 404');
		expect(sandbox().stream.url(key)).toBe(`${base}/api/v1/ws/${key}`);
	});

	it('the rate limit counts listen-key requests, and the 61st live key of one API key waits for one to expire', async () => {
		sandbox().setRateLimit({ windowMs: 60_000, maxWeight: 3 });
		await newListenKey(master());
		await newListenKey(master());
		await newListenKey(master());
		expect((await master().createListenKey()).status).toBe(429);
		sandbox().setRateLimit(false);
		for (let i = 3; i < 60; i++) await newListenKey(master());
		const refused = await master().createListenKey();
		expect([refused.status, refused.json.code]).toEqual([429, '0003']);
		expect(refused.headers['retry-after']).toBe(String(TTL / 1000));
		// another API key is not concerned
		expect((await sub().createListenKey()).status).toBe(200);
		clock = T0 + TTL;
		expect((await master().createListenKey()).status).toBe(200);
	});
});

/** The order update of `o` in `status`, as every field shows with nothing filled. */
const report = (
	o: { orderId: string; clientOrderId: string },
	fields: Record<string, unknown>,
) => ({
	e: 'executionReport',
	E: String(T0),
	s: 'BTCUSDT',
	c: o.clientOrderId,
	S: 'BUY',
	o: 'LIMIT',
	f: 'GTC',
	q: '0.5',
	p: '40000',
	X: 'NEW',
	i: o.orderId,
	l: '0',
	z: '0',
	L: '0',
	n: '0',
	N: '',
	u: true,
	w: true,
	m: false,
	O: String(T0),
	Z: '0',
	C: false,
	v: '0',
	d: '',
	r: '0.5',
	V: '0',
	P: '0',
	reqAmt: '0',
	lo: false,
	lt: '',
	...fields,
});
const account = (E: number, B: { a: string; f: string; l: string }[]) => ({
	e: 'outboundAccountInfo',
	E: String(E),
	T: true,
	W: true,
	D: true,
	B,
});

describe('events of the key’s account', () => {
	it('a LIMIT order NEW -> PARTIALLY_FILLED -> FILLED (sb.fillOrder): reports, tickets and the balances that moved', async () => {
		const { ws } = await masterStream();
		const o = await place(buy('a'));
		const placed = await ws.eventsAtLeast(2);
		expect(ws.messages.every((m) => Array.isArray(m))).toBe(true);
		expect(placed).toEqual([report(o, {}), account(T0, [{ a: 'USDT', f: '80000', l: '20000' }])]);
		clock = T0 + 1000;
		sandbox().fillOrder(o.orderId, '0.2');
		const afterPartial = await ws.eventsAtLeast(5);
		const fills = (await master().trades()).json as Json[];
		expect(afterPartial.slice(2)).toEqual([
			report(o, {
				E: String(T0 + 1000),
				X: 'PARTIALLY_FILLED',
				l: '0.2',
				z: '0.2',
				L: '40000',
				n: '0.0002',
				N: 'BTC',
				m: true,
				Z: '8000',
				d: fills[0].id,
				r: '0.3',
				V: '40000',
			}),
			{
				e: 'ticketInfo',
				E: String(T0 + 1000),
				s: 'BTCUSDT',
				q: '0.2',
				t: String(T0 + 1000),
				p: '40000',
				T: fills[0].ticketId,
				o: o.orderId,
				c: 'a',
				a: '10001',
				m: true,
				S: 'BUY',
			},
			account(T0 + 1000, [
				{ a: 'BTC', f: '10.1998', l: '0' },
				{ a: 'USDT', f: '80000', l: '12000' },
			]),
		]);
		clock = T0 + 2000;
		sandbox().fillOrder(o.orderId);
		const all = await ws.eventsAtLeast(8);
		const fills2 = (await master().trades()).json as Json[];
		expect(all.slice(5)).toEqual([
			report(o, {
				E: String(T0 + 2000),
				X: 'FILLED',
				l: '0.3',
				z: '0.5',
				L: '40000',
				n: '0.0003',
				N: 'BTC',
				w: false,
				m: true,
				Z: '20000',
				d: fills2[0].id,
				r: '0',
				V: '40000',
			}),
			expect.objectContaining({ e: 'ticketInfo', q: '0.3', T: fills2[0].ticketId }),
			account(T0 + 2000, [
				{ a: 'BTC', f: '10.4995', l: '0' },
				{ a: 'USDT', f: '80000', l: '0' },
			]),
		]);
		await sleep(50);
		expect(ws.events).toHaveLength(8);
	});

	it('the REST state already shows the change when its event arrives (order, fills, balances)', async () => {
		const { ws } = await masterStream();
		const seen: Json[] = [];
		const checks: Promise<void>[] = [];
		ws.ws.on('message', (data) => {
			for (const e of JSON.parse(data.toString()) as Json[]) {
				if (e.e === 'executionReport') {
					checks.push(
						(async () => {
							const q = (await master().queryOrder({ orderId: e.i })).json;
							const trades = (await master().trades()).json as Json[];
							seen.push([e.X, q.status, e.d === '' || trades.some((t) => t.id === e.d)]);
						})(),
					);
				}
				if (e.e === 'outboundAccountInfo') {
					checks.push(
						(async () => {
							const balances = (await master().account()).json.balances as Json[];
							for (const b of e.B) {
								const line = balances.find((x) => x.asset === b.a);
								seen.push([b.a, b.f === line.free && b.l === line.locked]);
							}
						})(),
					);
				}
			}
		});
		const market = await place({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', quantity: '0.1' });
		await ws.eventsAtLeast(4);
		await Promise.all(checks);
		expect(seen).toEqual(
			expect.arrayContaining([
				['FILLED', 'FILLED', true],
				['BTC', true],
				['USDT', true],
			]),
		);
		// a MARKET order: NEW, then FILLED with its (taker) fill
		expect(ws.events.map((e: Json) => [e.e, e.X ?? '', e.m ?? ''])).toEqual([
			['executionReport', 'NEW', false],
			['executionReport', 'FILLED', false],
			['ticketInfo', '', false],
			['outboundAccountInfo', '', ''],
		]);
		expect(ws.events[1]).toMatchObject({
			i: market.orderId,
			o: 'MARKET',
			f: 'IOC',
			q: '0.1',
			p: '0',
			l: '0.1',
			z: '0.1',
			L: '50000',
			Z: '5000',
			n: '5',
			N: 'USDT',
			w: false,
			r: '0',
			V: '50000',
		});
	});

	it('cancel through the API: CANCELED with the funds unlocked; with cancelApplyDelayMs PENDING_CANCEL first', async () => {
		const { ws } = await masterStream();
		const o = await place(buy('c'));
		await master().cancelOrder({ orderId: o.orderId });
		const events = await ws.eventsAtLeast(4);
		expect(events.slice(2)).toEqual([
			report(o, { X: 'CANCELED', w: false }),
			account(T0, [{ a: 'USDT', f: '100000', l: '0' }]),
		]);
		sandbox().setBehaviour({ cancelApplyDelayMs: 300 });
		const p = await place(buy('d'));
		sandbox().fillOrder(p.orderId, '0.1');
		await master().cancelOrder({ orderId: p.orderId });
		const later = await ws.eventsAtLeast(12, 3000);
		expect(later.slice(4).map((e: Json) => [e.e, e.X ?? ''])).toEqual([
			['executionReport', 'NEW'],
			['outboundAccountInfo', ''],
			['executionReport', 'PARTIALLY_FILLED'],
			['ticketInfo', ''],
			['outboundAccountInfo', ''],
			['executionReport', 'PENDING_CANCEL'],
			['executionReport', 'PARTIALLY_CANCELED'],
			['outboundAccountInfo', ''],
		]);
		expect(later[9]).toMatchObject({ w: true, z: '0.1', r: '0.4' });
		expect(later[10]).toMatchObject({ w: false, z: '0.1', r: '0.4' });
		expect(later[11].B).toEqual([{ a: 'USDT', f: '96000', l: '0' }]);
	});

	it('batch orders, seedOpenOrder and advanceOrders push too; balances only for the coins that moved', async () => {
		const { ws } = await masterStream();
		const b = await master().batch([
			{ ...buy('b1'), quantity: '0.1' },
			{ ...buy('b2'), side: 'SELL', quantity: '1', price: '60000' },
		]);
		expect(b.status).toBe(200);
		const batch = await ws.eventsAtLeast(4);
		expect(batch.map((e: Json) => [e.e, e.c ?? e.B])).toEqual([
			['executionReport', 'b1'],
			['outboundAccountInfo', [{ a: 'USDT', f: '96000', l: '4000' }]],
			['executionReport', 'b2'],
			['outboundAccountInfo', [{ a: 'BTC', f: '9', l: '1' }]],
		]);
		const seeded = sandbox().seedOpenOrder({
			symbol: 'SOLUSDT',
			side: 'BUY',
			price: '100',
			quantity: '1',
			time: T0,
			clientOrderId: 's',
		});
		const afterSeed = await ws.eventsAtLeast(6);
		expect(afterSeed[4]).toMatchObject({ X: 'NEW', i: seeded.orderId, c: 's', s: 'SOLUSDT' });
		expect(afterSeed[5].B).toEqual([{ a: 'USDT', f: '95900', l: '4100' }]);
		sandbox().advanceOrders('SOLUSDT');
		const advanced = await ws.eventsAtLeast(9);
		expect(advanced.slice(6).map((e: Json) => [e.e, e.X ?? e.B])).toEqual([
			['executionReport', 'PARTIALLY_FILLED'],
			['ticketInfo', undefined],
			[
				'outboundAccountInfo',
				[
					{ a: 'SOL', f: '1000.4995', l: '0' },
					{ a: 'USDT', f: '95900', l: '4050' },
				],
			],
		]);
	});

	it('balance changes: setBalance and transfers push the coins that moved, to the sockets of that account only', async () => {
		const { ws } = await masterStream();
		const subWs = await open(sandbox().stream.url(await newListenKey(sub())));
		const roWs = await open(
			sandbox().stream.url(await newListenKey(master().withCredentials(DEMO_KEYS.readOnly))),
		);
		sandbox().setBalance('10001', 'ETH', '5');
		sandbox().setBalance('10005', 'BTC', '1'); // custody: no listen key follows it
		sandbox().setBalance('20001', 'SOL', '7');
		await master().transfer({
			fromAccountId: '10001',
			toAccountId: '10005',
			coin: 'USDT',
			quantity: '10',
		});
		await ws.eventsAtLeast(2);
		await subWs.eventsAtLeast(1);
		await roWs.eventsAtLeast(2);
		expect(ws.events).toEqual([
			account(T0, [{ a: 'ETH', f: '5', l: '0' }]),
			account(T0, [{ a: 'USDT', f: '99990', l: '0' }]),
		]);
		// the read-only key's listen key follows the same trading account
		expect(roWs.events).toEqual(ws.events);
		expect(subWs.events).toEqual([account(T0, [{ a: 'SOL', f: '7', l: '0' }])]);
		// the sub key's orders reach the sub key's sockets only
		await sub().order({ ...buy('sub'), quantity: '0.1' });
		await subWs.eventsAtLeast(3);
		await sleep(50);
		expect(ws.events).toHaveLength(2);
		expect(subWs.events[1]).toMatchObject({ e: 'executionReport', c: 'sub' });
	});

	it('no event for an order test, a refused order, seeded fills or seeded history', async () => {
		const { ws } = await masterStream();
		await master().orderTest(buy('t'));
		expect((await master().order({ ...buy('x'), quantity: '100' })).json.code).toBe('0401');
		sandbox().seedTrades({ count: 3, startTime: T0 - 1000, endTime: T0 });
		sandbox().seedRecords({ flowType: 51, count: 3, startTime: T0 - 1000, endTime: T0 });
		sandbox().setBalance('10001', 'BTC', '1');
		const events = await ws.eventsAtLeast(1);
		await sleep(50);
		expect(events).toEqual([account(T0, [{ a: 'BTC', f: '1', l: '0' }])]);
	});

	it('marketOrderType byBase names a MARKET order as the family’s stream does', async () => {
		sandbox().setBehaviour({ marketOrderType: 'byBase' });
		const { ws } = await masterStream();
		await place({ symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', amount: '100' });
		const events = await ws.eventsAtLeast(2);
		expect(events[0]).toMatchObject({ o: 'MARKET_OF_QUOTE', reqAmt: '100', q: '0', r: '0' });
	});
});
