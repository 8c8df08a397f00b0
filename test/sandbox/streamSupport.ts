/**
 * A WebSocket client of the sandbox's user data stream for its own tests (the `ws` package): every
 * message kept in arrival order, the events of the array messages flattened, waiting for a
 * message, the close, or a refused upgrade's HTTP status.
 */
import { WebSocket } from 'ws';

import type { TestClient } from '../../sandbox/testClient';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export class StreamClient {
	/** Every message, parsed, in arrival order (raw text when it is not JSON). */
	readonly messages: Json[] = [];
	readonly closed: Promise<{ code: number; reason: string }>;
	private waiters: (() => void)[] = [];

	constructor(readonly ws: WebSocket) {
		ws.on('message', (data) => {
			const text = data.toString();
			let parsed: Json;
			try {
				parsed = JSON.parse(text);
			} catch {
				parsed = text;
			}
			this.messages.push(parsed);
			for (const w of this.waiters) w();
		});
		this.closed = new Promise((resolve) =>
			ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
		);
	}

	/** The events of every array message, in order (pings and pongs left out). */
	get events(): Json[] {
		return this.messages.filter((m) => Array.isArray(m)).flat();
	}

	/** Messages that are single objects: pings and pongs. */
	get heartbeats(): Json[] {
		return this.messages.filter((m) => m !== null && typeof m === 'object' && !Array.isArray(m));
	}

	/** Resolves once `ready()` holds (checked on every message), rejects after `timeoutMs`. */
	until<T>(ready: () => T | undefined | false, timeoutMs = 3000): Promise<T> {
		return new Promise((resolve, reject) => {
			const check = () => {
				const v = ready();
				if (v !== undefined && v !== false) {
					this.waiters = this.waiters.filter((w) => w !== check);
					clearTimeout(timer);
					resolve(v);
				}
			};
			const timer = setTimeout(() => {
				this.waiters = this.waiters.filter((w) => w !== check);
				reject(new Error(`timed out; messages so far: ${JSON.stringify(this.messages)}`));
			}, timeoutMs);
			this.waiters.push(check);
			check();
		});
	}

	/** Wait until at least `n` events have arrived; returns them all. */
	eventsAtLeast(n: number, timeoutMs = 3000): Promise<Json[]> {
		return this.until(() => (this.events.length >= n ? this.events : undefined), timeoutMs);
	}

	send(value: unknown): void {
		this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
	}

	close(): Promise<{ code: number; reason: string }> {
		if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING)
			this.ws.close();
		return this.closed;
	}
}

/** Open a socket; rejects with `HTTP <status>` when the upgrade is refused. */
export function connect(url: string): Promise<StreamClient> {
	return new Promise((resolve, reject) => {
		const ws = new WebSocket(url);
		const client = new StreamClient(ws);
		ws.once('open', () => resolve(client));
		ws.once('unexpected-response', (_req, res) => {
			reject(new Error(`HTTP ${res.statusCode}`));
			res.resume();
			ws.terminate();
		});
		ws.once('error', (e) => reject(e));
	});
}

/** Create a listen key with `client` (asserting 200) and return it. */
export async function newListenKey(client: TestClient): Promise<string> {
	const r = await client.createListenKey();
	expect(r.status).toBe(200);
	return r.json.listenKey as string;
}

/** Wait `ms` real milliseconds. */
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Every client opened through `open`, closed after each test. */
export function streamClients(): {
	open: (url: string) => Promise<StreamClient>;
} {
	const opened: StreamClient[] = [];
	afterEach(async () => {
		await Promise.all(opened.splice(0).map((c) => c.close()));
	});
	return {
		open: async (url: string) => {
			const c = await connect(url);
			opened.push(c);
			return c;
		},
	};
}
