/**
 * stream/hub.ts: the JSON heartbeat of the user data stream, both ways. A client's {"ping": n} is
 * answered {"pong": n, "channelId": …}; the server pings every streamPingIntervalMs and terminates a
 * socket whose last two pings went unanswered; anything else a client sends is ignored.
 */
import { useSandboxClients } from '../support/sandbox';
import { T0 } from './support';
import { newListenKey, sleep, streamClients, type Json } from './streamSupport';

const PING_MS = 150;
const { sandbox, master } = useSandboxClients({
	now: () => T0,
	rateLimit: false,
	requestRates: false,
	streamPingIntervalMs: PING_MS,
});
const { open } = streamClients();

async function stream() {
	return open(sandbox().stream.url(await newListenKey(master())));
}

/** Answer every server ping with {"pong": <its ms>}. */
function answerServerPings(ws: Awaited<ReturnType<typeof stream>>): void {
	ws.ws.on('message', (data) => {
		const m = JSON.parse(data.toString()) as Json;
		if (!Array.isArray(m) && typeof m.ping === 'number') ws.send({ pong: m.ping });
	});
}

describe('heartbeat', () => {
	it('a client ping is answered with the same number and the socket’s channelId; the server ignores what it cannot read', async () => {
		sandbox().stream.setHeartbeat({ sendPings: false });
		const ws = await stream();
		for (const junk of ['not json', '[1,2]', 'null', '{"foo":1}', '{"pong":"x"}', '42'])
			ws.send(junk);
		ws.ws.send(Buffer.from([0xff, 0x00]), { binary: true });
		ws.send({ ping: 1_748_503_859_938 });
		const pong = await ws.until(() => ws.heartbeats.find((m: Json) => 'pong' in m));
		expect(Object.keys(pong)).toEqual(['pong', 'channelId']);
		expect(pong.pong).toBe(1_748_503_859_938);
		expect(typeof pong.channelId).toBe('string');
		expect(ws.heartbeats).toHaveLength(1);
		// another socket has another channel
		const other = await stream();
		other.send({ ping: 7 });
		const pong2 = await other.until(() => other.heartbeats.find((m: Json) => 'pong' in m));
		expect(pong2.pong).toBe(7);
		expect(pong2.channelId).not.toBe(pong.channelId);
		expect(sandbox().stream.stats().pingsFromClients).toBe(2);
	});

	it('the server pings {"ping": ms, "channelId"} every streamPingIntervalMs; a socket that answers stays open', async () => {
		const ws = await stream();
		answerServerPings(ws);
		await sleep(PING_MS * 7);
		const pings = ws.heartbeats.filter((m: Json) => 'ping' in m);
		expect(pings.length).toBeGreaterThanOrEqual(4);
		expect(pings[0]).toEqual({ ping: T0, channelId: expect.any(String) });
		expect(ws.ws.readyState).toBe(ws.ws.OPEN);
		expect(sandbox().stream.stats().connections).toBe(1);
	});

	it('two server pings in a row without a pong: the socket is terminated (client pings do not count)', async () => {
		const ws = await stream();
		const started = Date.now();
		// a client that pings but never answers the server's pings is dead to the server
		const pinger = setInterval(() => ws.send({ ping: Date.now() }), PING_MS / 2);
		try {
			const closed = await ws.closed;
			const after = Date.now() - started;
			expect(closed.code).toBe(1006); // no close frame
			expect(ws.heartbeats.filter((m: Json) => 'ping' in m)).toHaveLength(2);
			expect(after).toBeGreaterThanOrEqual(PING_MS * 3 - 20);
		} finally {
			clearInterval(pinger);
		}
		expect(sandbox().stream.stats().connections).toBe(0);
		// the listen key is still alive: the client reconnects
		expect(sandbox().stream.stats().listenKeys).toHaveLength(1);
	});

	it('one pong after a missed ping is enough: the count starts again', async () => {
		const ws = await stream();
		let answered = 0;
		ws.ws.on('message', (data) => {
			const m = JSON.parse(data.toString()) as Json;
			// answer every second ping only
			if (!Array.isArray(m) && 'ping' in m && answered++ % 2 === 1) ws.send({ pong: m.ping });
		});
		await sleep(PING_MS * 8);
		expect(ws.ws.readyState).toBe(ws.ws.OPEN);
	});

	it('setHeartbeat: answerPings false leaves client pings unanswered (counted); sendPings false sends none and ends nothing', async () => {
		sandbox().stream.setHeartbeat({ answerPings: false, sendPings: false });
		const ws = await stream();
		ws.send({ ping: 1 });
		ws.send({ ping: 2 });
		await sleep(PING_MS * 4);
		expect(ws.heartbeats).toEqual([]);
		expect(ws.ws.readyState).toBe(ws.ws.OPEN);
		expect(sandbox().stream.stats().pingsFromClients).toBe(2);
		// resuming one half leaves the other as it was
		sandbox().stream.setHeartbeat({ answerPings: true });
		ws.send({ ping: 3 });
		await ws.until(() => ws.heartbeats.length === 1);
		expect(ws.heartbeats[0]).toMatchObject({ pong: 3 });
		await sleep(PING_MS * 2);
		expect(ws.heartbeats).toHaveLength(1);
		// reset() puts both back
		sandbox().reset();
		const again = await stream();
		again.send({ ping: 4 });
		await again.until(() => again.heartbeats.find((m: Json) => m.pong === 4));
		await again.until(() => again.heartbeats.find((m: Json) => 'ping' in m));
	});
});
