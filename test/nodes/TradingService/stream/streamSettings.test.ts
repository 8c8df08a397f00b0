import {
	socketUrlOf,
	streamAddressOf,
	streamHostOf,
} from '../../../../nodes/TradingService/stream/streamSettings';

describe('the stream address', () => {
	it.each([
		['api-glb.hashkey.com', 'stream-glb.hashkey.com'],
		['api.example.com', 'stream.example.com'],
		['API-pro.example.com', 'stream-pro.example.com'],
		['apis.example.com', 'apis.example.com'],
		['127.0.0.1', '127.0.0.1'],
		['rest.example.com', 'rest.example.com'],
	])('derives the stream host of %s: %s', (host, stream) => {
		expect(streamHostOf(host)).toBe(stream);
	});

	it("derives the exchange's stream host from its api-pro host (since 2026-06-16), its sandbox's too; an old api-glb host as typed", () => {
		expect(streamAddressOf('https://api-pro.hashkey.com', '')).toEqual({
			ok: true,
			url: 'wss://stream-pro.hashkey.com',
		});
		expect(streamAddressOf('https://api-pro.sim.hashkeydev.com/', '')).toEqual({
			ok: true,
			url: 'wss://stream-pro.sim.hashkeydev.com',
		});
		expect(streamAddressOf('https://api-glb.hashkey.com', '')).toEqual({
			ok: true,
			url: 'wss://stream-glb.hashkey.com',
		});
	});

	it('derives wss from https and ws from http, keeping the port and the path prefix', () => {
		expect(streamAddressOf('https://api-glb.example.com', '')).toEqual({
			ok: true,
			url: 'wss://stream-glb.example.com',
		});
		expect(streamAddressOf('http://127.0.0.1:8787/prefix/', undefined)).toEqual({
			ok: true,
			url: 'ws://127.0.0.1:8787/prefix',
		});
	});

	it('takes a typed Stream URL as it is, without a trailing slash', () => {
		expect(streamAddressOf('https://api.example.com', ' wss://push.example.com:9443/ ')).toEqual({
			ok: true,
			url: 'wss://push.example.com:9443',
		});
	});

	it.each([
		['https://stream.example.com', 'must start with wss:// or ws://'],
		['not a url', 'is not a web address'],
		['wss://user:pw@stream.example.com', 'contains a user name, password, query or fragment'],
		['wss://stream.example.com/?x=1', 'contains a user name, password, query or fragment'],
	])('refuses the Stream URL %s, naming the field and the fix', (typed, problem) => {
		const address = streamAddressOf('https://api.example.com', typed);
		expect(address.ok).toBe(false);
		if (address.ok) return;
		expect(address.problem).toContain("credential's Stream URL");
		expect(address.problem).toContain(problem);
		expect(address.fix).toMatch(/wss:\/\/stream\.example\.com/);
		// The password never goes into the message.
		expect(JSON.stringify(address)).not.toContain('pw');
	});

	it('puts the listen key after the socket path, encoded', () => {
		expect(socketUrlOf('ws://127.0.0.1:1', 'abc/def')).toBe('ws://127.0.0.1:1/api/v1/ws/abc%2Fdef');
	});
});
