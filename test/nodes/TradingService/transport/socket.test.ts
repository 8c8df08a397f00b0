import {
	StreamSocket,
	type StandardWebSocket,
} from '../../../../nodes/TradingService/transport/socket';

/** A socket that fails at once, as one to a host that no longer resolves does. */
class FailingSocket implements StandardWebSocket {
	readyState = 0;
	private listeners: Record<string, Array<(event: { data?: unknown }) => void>> = {};
	constructor(readonly url: string) {
		queueMicrotask(() => {
			this.readyState = 3;
			for (const type of ['error', 'close'])
				for (const listener of this.listeners[type] ?? []) listener({});
		});
	}
	send(): void {}
	close(): void {}
	addEventListener(type: string, listener: (event: { data?: unknown }) => void): void {
		(this.listeners[type] ??= []).push(listener);
	}
}

const open = (url: string) =>
	StreamSocket.open(FailingSocket, url, {
		timeoutMs: 1000,
		now: () => Date.now(),
		stopped: () => false,
		onMessage: () => undefined,
	});

describe('StreamSocket.open: a connection that fails', () => {
	it('on the stream host before 2026-06-16: names the host it moved to, never the listen key', async () => {
		const error = await open('wss://stream-glb.hashkey.com/api/v1/ws/LISTEN-KEY-123').catch(
			(caught: Error) => caught,
		);
		expect(error).toBeInstanceOf(Error);
		expect((error as Error).message).toBe(
			"the connection failed: stream-glb.hashkey.com is the exchange's address before 2026-06-16, when its service moved to stream-pro.hashkey.com: replace stream-glb.hashkey.com with stream-pro.hashkey.com in the credential's Stream URL (or Base URL, when Stream URL is left empty)",
		);
		expect((error as Error).message).not.toContain('LISTEN-KEY-123');
	});

	it('on any other host: the failure alone', async () => {
		const error = await open('wss://stream-pro.hashkey.com/api/v1/ws/k').catch(
			(caught: Error) => caught,
		);
		expect((error as Error).message).toBe('the connection failed');
	});
});
