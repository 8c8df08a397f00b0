/**
 * stream/hub.ts: the user data stream's test controls (sb.stream): dropped connections, duplicated
 * events, listen keys expired at once, late events in order, the counters, and reset() and stop().
 */
import { startSandbox, DEMO_KEYS } from '../../sandbox';
import { TestClient } from '../../sandbox/testClient';
import { useSandboxClients } from '../support/sandbox';
import { T0 } from './support';
import { connect, newListenKey, sleep, streamClients, type Json } from './streamSupport';

const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
});
const { open } = streamClients();

async function stream() {
	const key = await newListenKey(master());
	return { key, ws: await open(sandbox().stream.url(key)) };
}

describe('sb.stream controls', () => {
	it('dropConnections(): every socket destroyed without a close frame; the keys stay alive and reconnects work', async () => {
		const { key, ws } = await stream();
		const second = await open(sandbox().stream.url(key));
		sandbox().stream.dropConnections();
		expect((await ws.closed).code).toBe(1006);
		expect((await second.closed).code).toBe(1006);
		expect(sandbox().stream.stats()).toMatchObject({ connections: 0, connectionsOpened: 2 });
		const again = await open(sandbox().stream.url(key));
		sandbox().setBalance('10001', 'BTC', '1');
		expect((await again.eventsAtLeast(1))[0]).toMatchObject({ e: 'outboundAccountInfo' });
		expect(sandbox().stream.stats()).toMatchObject({
			connections: 1,
			connectionsOpened: 3,
			listenKeys: [key],
		});
	});

	it('duplicateNext(n): each of the next n events comes twice, as two messages, then single again', async () => {
		const { ws } = await stream();
		sandbox().stream.duplicateNext(2);
		sandbox().setBalance('10001', 'BTC', '1');
		sandbox().setBalance('10001', 'ETH', '2');
		sandbox().setBalance('10001', 'SOL', '3');
		await ws.eventsAtLeast(5);
		await sleep(50);
		expect(ws.messages.map((m: Json[]) => [m.length, m[0].B[0].a])).toEqual([
			[1, 'BTC'],
			[1, 'BTC'],
			[1, 'ETH'],
			[1, 'ETH'],
			[1, 'SOL'],
		]);
		expect(() => sandbox().stream.duplicateNext(-1)).toThrow();
	});

	it('expireListenKeys(): sockets closed, PUT and DELETE -1125, reconnects refused 404', async () => {
		const { key, ws } = await stream();
		sandbox().stream.expireListenKeys();
		expect((await ws.closed).code).toBe(1000);
		expect((await master().keepAliveListenKey(key)).json.code).toBe('-1125');
		expect((await master().deleteListenKey(key)).json.code).toBe('-1125');
		await expect(connect(sandbox().stream.url(key))).rejects.toThrow('HTTP 404');
		expect(sandbox().stream.stats()).toMatchObject({ listenKeys: [], deletedListenKeys: [] });
		// a new key works
		await stream();
	});

	it('setEventDelay(ms): events arrive that late, in their order; 0 sends at once again', async () => {
		const { ws } = await stream();
		sandbox().stream.setEventDelay(600);
		const sent = Date.now();
		sandbox().setBalance('10001', 'BTC', '1');
		sandbox().stream.setEventDelay(0);
		// sent after, with no delay: still behind the delayed one
		sandbox().setBalance('10001', 'ETH', '2');
		await sleep(100);
		expect(ws.events).toEqual([]);
		await ws.eventsAtLeast(2);
		expect(Date.now() - sent).toBeGreaterThanOrEqual(590);
		expect(ws.events.map((e: Json) => e.B[0].a)).toEqual(['BTC', 'ETH']);
		sandbox().setBalance('10001', 'SOL', '3');
		const t = Date.now();
		await ws.eventsAtLeast(3);
		expect(Date.now() - t).toBeLessThan(500);
	});

	it('stats() counts keys, keep-alives, deletions, client pings and connections; reset() clears them and closes every socket', async () => {
		const { key, ws } = await stream();
		const k2 = await newListenKey(master());
		await master().keepAliveListenKey(key);
		await master().keepAliveListenKey(key);
		await master().deleteListenKey(k2);
		ws.send({ ping: 1 });
		await ws.until(() => ws.heartbeats.length > 0);
		expect(sandbox().stream.stats()).toEqual({
			connections: 1,
			connectionsOpened: 1,
			listenKeys: [key],
			deletedListenKeys: [k2],
			keepAlives: 2,
			pingsFromClients: 1,
		});
		sandbox().stream.setEventDelay(10_000);
		sandbox().stream.duplicateNext(5);
		sandbox().reset();
		expect((await ws.closed).code).toBe(1000);
		expect(sandbox().stream.stats()).toEqual({
			connections: 0,
			connectionsOpened: 0,
			listenKeys: [],
			deletedListenKeys: [],
			keepAlives: 0,
			pingsFromClients: 0,
		});
		expect((await master().keepAliveListenKey(key)).json.code).toBe('-1125');
		// delay and duplicates are gone too
		const fresh = await stream();
		sandbox().setBalance('10001', 'BTC', '1');
		await fresh.ws.eventsAtLeast(1, 500);
		await sleep(50);
		expect(fresh.ws.messages).toHaveLength(1);
	});

	it('stop() ends every socket and the listener', async () => {
		const sb = await startSandbox({ rateLimit: false, requestRates: false });
		const client = new TestClient(sb.baseUrl, DEMO_KEYS.sub, () => sb.now());
		const key = await newListenKey(client);
		const ws = await connect(sb.stream.url(key));
		await sb.stop();
		expect([1000, 1006]).toContain((await ws.closed).code);
		await expect(connect(sb.stream.url(key))).rejects.toThrow();
	});
});
