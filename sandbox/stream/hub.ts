/**
 * The user data stream's WebSocket side, on the sandbox's own HTTP listener: upgrades at
 * /api/v1/ws/<listenKey> (404 for a key that is not alive), the JSON heartbeat both ways, the
 * events of the key's account (events.ts) as JSON arrays, listen-key expiry closing sockets, and the
 * test controls (Sandbox.stream). Timers are unref'd: nothing here keeps a process alive.
 */
import type * as http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';

import { WebSocket, WebSocketServer } from 'ws';

import { CODES } from '../codes';
import { DEMO_ACCOUNTS, SUB_ACCOUNTS } from '../constants';
import type {
	DemoKey,
	StreamControl,
	StreamEventShape,
	StreamHeartbeat,
	StreamStats,
} from '../types';
import type { StreamEvent, StreamSink } from './events';
import { ListenKeys, type ListenKey } from './listenKeys';

/** The stream's path prefix; the listen key follows it. */
export const STREAM_PATH_PREFIX = '/api/v1/ws/';
/** Defaults: the family's 60-minute listen key and 30-second server ping. */
export const DEFAULT_LISTEN_KEY_TTL_MS = 3_600_000;
export const DEFAULT_STREAM_PING_INTERVAL_MS = 30_000;
/** How often (real ms) expired listen keys are looked for while any is alive. */
const EXPIRY_CHECK_MS = 250;
/** Close code and reasons when the server ends a socket (the node must not depend on them). */
const CLOSE_NORMAL = 1000;

interface Connection {
	ws: WebSocket;
	listenKey: string;
	accountId: string;
	channelId: string;
	/** Server pings sent since the last pong. */
	unanswered: number;
	pinger: NodeJS.Timeout;
}

interface Delivery {
	due: number;
	conn: Connection;
	text: string;
}

export interface UserStreamOptions {
	now: () => number;
	/** The sandbox's base URL (http://host:port), for url(). */
	baseUrl: () => string;
	listenKeyTtlMs?: number;
	streamPingIntervalMs?: number;
}

export class UserStream implements StreamControl, StreamSink {
	private readonly keys: ListenKeys;
	private readonly wss = new WebSocketServer({ noServer: true });
	private readonly conns = new Set<Connection>();
	private readonly pingIntervalMs: number;
	private heartbeat: Required<StreamHeartbeat> = { answerPings: true, sendPings: true };
	private shape: Required<StreamEventShape> = { ...DEFAULT_SHAPE };
	private duplicates = 0;
	private delayMs = 0;
	private queue: Delivery[] = [];
	private queueTimer: NodeJS.Timeout | null = null;
	private expiryTimer: NodeJS.Timeout | null = null;
	private connectionsOpened = 0;
	private pingsFromClients = 0;
	private channelSeq = 0;
	private readonly channelPrefix = randomBytes(8).toString('hex');

	constructor(private readonly options: UserStreamOptions) {
		this.keys = new ListenKeys(options.now, options.listenKeyTtlMs ?? DEFAULT_LISTEN_KEY_TTL_MS);
		this.pingIntervalMs = options.streamPingIntervalMs ?? DEFAULT_STREAM_PING_INTERVAL_MS;
	}

	// ---- listen keys (the REST routes, routes/userDataStream.ts) ----

	/** POST: a new key of `key`'s trading account, or null when the key holds the most it may. */
	createListenKey(key: DemoKey): ListenKey | null {
		this.sweep();
		const k = this.keys.create(key);
		if (k) this.watchExpiry();
		return k;
	}

	/** Sandbox-clock ms until one of the API key's live keys expires (a refused create's wait). */
	msUntilListenKeyFrees(apiKey: string): number {
		return this.keys.msUntilOneFrees(apiKey);
	}

	/** PUT: throws -1125 unless it is the API key's own live key. */
	keepAlive(apiKey: string, listenKey: string): void {
		this.sweep();
		this.keys.keepAlive(apiKey, listenKey);
	}

	/** DELETE: throws -1125 unless it is the API key's own live key; closes its sockets. */
	deleteListenKey(apiKey: string, listenKey: string): void {
		this.sweep();
		const k = this.keys.remove(apiKey, listenKey);
		this.closeKeys([k], 'listenKey deleted');
	}

	// ---- expiry ----

	/** Close the sockets of every key whose time has passed on the sandbox clock. */
	private sweep(): void {
		const gone = this.keys.sweep();
		if (gone.length > 0) this.closeKeys(gone, 'listenKey expired');
		if (this.keys.size === 0) this.stopExpiryWatch();
	}

	private watchExpiry(): void {
		if (this.expiryTimer) return;
		this.expiryTimer = setInterval(() => this.sweep(), EXPIRY_CHECK_MS);
		this.expiryTimer.unref();
	}

	private stopExpiryWatch(): void {
		if (this.expiryTimer) clearInterval(this.expiryTimer);
		this.expiryTimer = null;
	}

	private closeKeys(keys: ListenKey[], reason: string): void {
		const names = new Set(keys.map((k) => k.listenKey));
		for (const c of [...this.conns]) {
			if (names.has(c.listenKey)) this.close(c, reason);
		}
	}

	private close(c: Connection, reason: string): void {
		this.forget(c);
		if (c.ws.readyState === WebSocket.OPEN || c.ws.readyState === WebSocket.CONNECTING)
			c.ws.close(CLOSE_NORMAL, reason);
	}

	private forget(c: Connection): void {
		clearInterval(c.pinger);
		this.conns.delete(c);
	}

	// ---- sockets ----

	/** The HTTP listener's `upgrade` event. */
	handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
		socket.on('error', () => undefined);
		const rawUrl = req.url ?? '/';
		const qi = rawUrl.indexOf('?');
		const path = qi < 0 ? rawUrl : rawUrl.slice(0, qi);
		if (!path.startsWith(STREAM_PATH_PREFIX)) {
			const c = CODES.unsupportedOperation;
			refuse(socket, { code: c.code, msg: `${c.msg} (no WebSocket at '${path}')` });
			return;
		}
		this.sweep();
		const k = this.keys.get(path.slice(STREAM_PATH_PREFIX.length));
		if (!k) {
			const c = CODES.listenKeyNotFound;
			refuse(socket, { code: c.code, msg: c.msg });
			return;
		}
		this.wss.handleUpgrade(req, socket, head, (ws) => {
			// the key may have gone while the handshake ran
			if (!this.keys.get(k.listenKey)) {
				ws.close(CLOSE_NORMAL, 'listenKey expired');
				return;
			}
			this.attach(ws, k);
		});
	}

	private attach(ws: WebSocket, k: ListenKey): void {
		const conn: Connection = {
			ws,
			listenKey: k.listenKey,
			accountId: k.accountId,
			channelId: `${this.channelPrefix}-${(++this.channelSeq).toString(16).padStart(8, '0')}`,
			unanswered: 0,
			pinger: setInterval(() => this.serverPing(conn), this.pingIntervalMs),
		};
		conn.pinger.unref();
		this.conns.add(conn);
		this.connectionsOpened++;
		ws.on('message', (data, isBinary) => {
			if (!isBinary) this.onMessage(conn, data.toString());
		});
		ws.on('close', () => this.forget(conn));
		ws.on('error', () => this.forget(conn));
	}

	/** Two pings in a row without a pong: the connection is dead, end it; else ping (if pinging). */
	private serverPing(c: Connection): void {
		if (c.unanswered >= 2) {
			this.forget(c);
			c.ws.terminate();
			return;
		}
		if (!this.heartbeat.sendPings || c.ws.readyState !== WebSocket.OPEN) return;
		c.ws.send(JSON.stringify({ ping: this.options.now(), channelId: c.channelId }));
		c.unanswered++;
	}

	/** `{"ping": n}` is answered, `{"pong": n}` clears the unanswered count; anything else is ignored. */
	private onMessage(c: Connection, text: string): void {
		let msg: unknown;
		try {
			msg = JSON.parse(text);
		} catch {
			return;
		}
		if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return;
		const m = msg as Record<string, unknown>;
		if ('ping' in m && (typeof m.ping === 'number' || typeof m.ping === 'string')) {
			this.pingsFromClients++;
			if (this.heartbeat.answerPings && c.ws.readyState === WebSocket.OPEN)
				c.ws.send(JSON.stringify({ pong: m.ping, channelId: c.channelId }));
			return;
		}
		if ('pong' in m) c.unanswered = 0;
	}

	// ---- events (StreamSink) ----

	/** Whether a listen key of `listener` carries the events of `accountId`. */
	private carries(listener: string, accountId: string): boolean {
		if (listener === accountId) return true;
		return (
			this.shape.subAccountEvents &&
			listener === DEMO_ACCOUNTS.mainTrading &&
			SUB_ACCOUNTS.includes(accountId)
		);
	}

	follows(accountId: string): boolean {
		for (const k of this.keys.live()) {
			if (this.carries(k.accountId, accountId)) return true;
		}
		return false;
	}

	deliver(accountId: string, events: StreamEvent[]): void {
		this.sweep();
		const targets = [...this.conns].filter(
			(c) => this.carries(c.accountId, accountId) && this.keys.get(c.listenKey) !== undefined,
		);
		if (targets.length === 0) return;
		for (const event of events) {
			const text = JSON.stringify([reshape(event, accountId, this.shape)]);
			let times = 1;
			if (this.duplicates > 0) {
				this.duplicates--;
				times = 2;
			}
			for (let i = 0; i < times; i++) {
				for (const conn of targets) this.enqueue(conn, text);
			}
		}
	}

	private enqueue(conn: Connection, text: string): void {
		if (this.delayMs === 0 && this.queue.length === 0) {
			send(conn, text);
			return;
		}
		// order kept: never due before what is already waiting
		const last = this.queue[this.queue.length - 1];
		const due = Math.max(Date.now() + this.delayMs, last?.due ?? 0);
		this.queue.push({ due, conn, text });
		this.pump();
	}

	private pump(): void {
		if (this.queueTimer) clearTimeout(this.queueTimer);
		this.queueTimer = null;
		const now = Date.now();
		while (this.queue.length > 0 && this.queue[0].due <= now) {
			const d = this.queue.shift()!;
			send(d.conn, d.text);
		}
		if (this.queue.length > 0) {
			this.queueTimer = setTimeout(() => this.pump(), this.queue[0].due - now);
			this.queueTimer.unref();
		}
	}

	// ---- test controls (Sandbox.stream) ----

	url(listenKey: string): string {
		return `${this.options.baseUrl().replace(/^http/, 'ws')}${STREAM_PATH_PREFIX}${listenKey}`;
	}

	dropConnections(): void {
		for (const c of [...this.conns]) {
			this.forget(c);
			c.ws.terminate();
		}
	}

	setHeartbeat(heartbeat: StreamHeartbeat): void {
		this.heartbeat = { ...this.heartbeat, ...stripUndefined(heartbeat) };
	}

	duplicateNext(n: number): void {
		if (!Number.isSafeInteger(n) || n < 0)
			throw new Error(`duplicateNext: n must be a non-negative integer: ${String(n)}`);
		this.duplicates = n;
	}

	expireListenKeys(): void {
		const all = this.keys.expireAll();
		this.closeKeys(all, 'listenKey expired');
		this.stopExpiryWatch();
	}

	setEventDelay(ms: number): void {
		if (!Number.isFinite(ms) || ms < 0)
			throw new Error(`setEventDelay: ms must be a non-negative number: ${String(ms)}`);
		this.delayMs = ms;
	}

	setEventShape(shape: StreamEventShape): void {
		for (const [field, value] of Object.entries(shape)) {
			if (value === undefined) continue;
			const allowed = SHAPE_VALUES[field as keyof StreamEventShape];
			if (allowed === undefined || !allowed.includes(value as never))
				throw new Error(`setEventShape: ${field} cannot be ${JSON.stringify(value)}`);
		}
		this.shape = { ...this.shape, ...stripUndefined(shape) };
	}

	stats(): StreamStats {
		this.sweep();
		return {
			connections: [...this.conns].filter((c) => c.ws.readyState === WebSocket.OPEN).length,
			connectionsOpened: this.connectionsOpened,
			listenKeys: this.keys.live().map((k) => k.listenKey),
			deletedListenKeys: [...this.keys.deleted],
			keepAlives: this.keys.keepAlives,
			pingsFromClients: this.pingsFromClients,
		};
	}

	// ---- lifecycle ----

	/** reset(): keys, sockets, controls and counters back to the start. */
	reset(): void {
		for (const c of [...this.conns]) this.close(c, 'sandbox reset');
		this.clearQueue();
		this.stopExpiryWatch();
		this.keys.clear();
		this.heartbeat = { answerPings: true, sendPings: true };
		this.shape = { ...DEFAULT_SHAPE };
		this.duplicates = 0;
		this.delayMs = 0;
		this.connectionsOpened = 0;
		this.pingsFromClients = 0;
	}

	/** stop(): every socket ended at once, every timer gone. */
	stop(): void {
		for (const c of [...this.conns]) {
			this.forget(c);
			c.ws.terminate();
		}
		this.clearQueue();
		this.stopExpiryWatch();
		this.wss.close();
	}

	private clearQueue(): void {
		if (this.queueTimer) clearTimeout(this.queueTimer);
		this.queueTimer = null;
		this.queue = [];
	}
}

const DEFAULT_SHAPE: Required<StreamEventShape> = {
	orders: 'spot',
	balances: 'spot',
	makerFlag: 'boolean',
	accountField: false,
	subAccountEvents: false,
	contractTradeId: 't',
};

const SHAPE_VALUES: Record<keyof StreamEventShape, readonly unknown[]> = {
	orders: ['spot', 'contract', 'unnamed'],
	balances: ['spot', 'contract'],
	makerFlag: ['boolean', 'text'],
	accountField: [true, false],
	subAccountEvents: [true, false],
	contractTradeId: ['t', 'd', 'none'],
};

/** One event (built in the family's spot shapes, events.ts) in the shapes asked for; a copy. */
function reshape(
	event: StreamEvent,
	accountId: string,
	shape: Required<StreamEventShape>,
): StreamEvent {
	const out: StreamEvent = { ...event };
	if (event.e === 'executionReport') {
		if (shape.orders === 'contract') {
			out.e = 'contractExecutionReport';
			for (const field of ['z', 'reqAmt', 'lo', 'lt']) delete out[field];
		} else if (shape.orders === 'unnamed') {
			out.e = '';
		}
		if (shape.makerFlag === 'text') out.m = String(event.m);
		if (shape.accountField) out.a = accountId;
	} else if (event.e === 'contractExecutionReport' && shape.contractTradeId !== 't') {
		if (shape.contractTradeId === 'd') out.d = event.t;
		delete out.t;
	} else if (event.e === 'outboundAccountInfo' && shape.balances === 'contract') {
		out.e = 'outboundContractAccountInfo';
		out.B = (event.B as Array<Record<string, unknown>>).map((line) => {
			const copy = { ...line };
			delete copy.l;
			return copy;
		});
	}
	return out;
}

function send(conn: Connection, text: string): void {
	if (conn.ws.readyState === WebSocket.OPEN) conn.ws.send(text);
}

/** Refuse an upgrade with an HTTP 404 and a JSON error body. */
function refuse(socket: Duplex, body: { code: string; msg: string }): void {
	const text = JSON.stringify(body);
	socket.end(
		`HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
	);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
	return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
