import { sleep } from 'n8n-workflow';

import { parseJsonKeepingDigits } from './answer';
import { movedHostAdvice } from './errors';

/**
 * The user data stream's WebSocket: the runtime's global (Node 22 and later; n8n 2.x runs on
 * Node 24), so the package imports nothing but n8n-workflow. Tests on Node 20 install one.
 */

export interface StandardWebSocket {
	readonly readyState: number;
	send(data: string): void;
	close(code?: number, reason?: string): void;
	addEventListener(type: string, listener: (event: { data?: unknown }) => void): void;
}

export type WebSocketConstructor = new (url: string) => StandardWebSocket;

const OPEN = 1;

// The runtime's global (Node 22+), named here without a type of its own in Node 20's typings.
declare const WebSocket: unknown;

/** Undefined before Node 22. */
export function runtimeWebSocket(): WebSocketConstructor | undefined {
	return typeof WebSocket === 'function' ? (WebSocket as WebSocketConstructor) : undefined;
}

const SOCKET_POLL_MS = 50;

/**
 * One open connection. Each message goes to `onMessage` in order, parsed with every digit kept;
 * one that is not JSON as `undefined` with its text. `lastMessageAt` feeds the heartbeat.
 */
export class StreamSocket {
	lastMessageAt: number;
	private closeReason?: string;

	private constructor(
		private readonly socket: StandardWebSocket,
		now: () => number,
	) {
		this.lastMessageAt = now();
	}

	/**
	 * Resolves once open; rejects when it closes or fails first, after `timeoutMs`, or when
	 * `stopped()`. The URL holds the listen key: it never goes into an error message.
	 */
	static async open(
		Constructor: WebSocketConstructor,
		url: string,
		options: {
			timeoutMs: number;
			now: () => number;
			stopped: () => boolean;
			onMessage: (message: unknown, text: string) => void;
		},
	): Promise<StreamSocket> {
		const socket = new Constructor(url);
		const connection = new StreamSocket(socket, options.now);
		let failed: string | undefined;
		socket.addEventListener('message', (event) => {
			connection.lastMessageAt = options.now();
			const text = typeof event.data === 'string' ? event.data : String(event.data);
			let message: unknown;
			try {
				message = parseJsonKeepingDigits(text);
			} catch {
				message = undefined;
			}
			options.onMessage(message, text);
		});
		socket.addEventListener('error', () => {
			// Only the host is named: the URL holds the listen key.
			const moved = movedHostAdvice(url);
			failed ??= moved === undefined ? 'the connection failed' : `the connection failed: ${moved}`;
		});
		socket.addEventListener('close', () => {
			failed ??= 'the connection closed';
			connection.closeReason ??= failed;
		});
		const deadline = options.now() + options.timeoutMs;
		while (socket.readyState !== OPEN) {
			if (failed !== undefined || options.stopped() || options.now() >= deadline) {
				connection.close();
				throw new Error(
					failed ??
						(options.stopped()
							? 'the trigger stopped'
							: `no connection within ${options.timeoutMs} ms`),
				);
			}
			await sleep(SOCKET_POLL_MS);
		}
		connection.lastMessageAt = options.now();
		return connection;
	}

	/** Why the connection ended; undefined while open. */
	get ended(): string | undefined {
		return (
			this.closeReason ?? (this.socket.readyState > OPEN ? 'the connection closed' : undefined)
		);
	}

	send(message: object): void {
		if (this.socket.readyState === OPEN) this.socket.send(JSON.stringify(message));
	}

	/** Idempotent; `reason` is what `ended` says from now on. */
	close(reason = 'closed by the trigger'): void {
		this.closeReason ??= reason;
		try {
			this.socket.close(1000);
		} catch {
			// already closing or closed
		}
	}
}
