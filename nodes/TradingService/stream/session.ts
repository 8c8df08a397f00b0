import { sleep, type IDataObject, type ITriggerFunctions } from 'n8n-workflow';

import { isServiceRejection, type ServiceClient } from '../transport';
import { StreamSocket, type WebSocketConstructor } from '../transport/socket';
import { STREAM_TIMINGS, USER_STREAM, type Activation, type SessionClock } from './activation';
import { Emitter } from './emitter';
import { followsFutures } from './events';
import { STREAM_ENDPOINTS } from './endpoints';
import { CatchUps, Outage, catchUp, reportOutage, takeBaseline } from './restCatchUp';
import {
	followedAccount,
	followedContractAccount,
	socketUrlOf,
	type StreamSettings,
} from './streamSettings';
import { emptyStreamState, readStreamState } from './streamState';

/**
 * One activation of the real-time trigger: its listen key, its connection and the loop that keeps
 * both alive. Waits are short sleeps that look at `stopped` in between (n8n's scanner allows no
 * timers), so closing the workflow ends every wait within TICK_MS.
 */

/** Step of every wait and of the heartbeat watch. */
const TICK_MS = 200;
const OPEN_TIMEOUT_MS = 15_000;
/** How long closing waits for a request in flight before it deletes the listen key anyway. */
const STOP_WAIT_MS = 3_000;

/**
 * The listen key. The one in use is also kept in the state, so that the next activation deletes it
 * when a killed process could not. Its requests are urgent: they go before the reads waiting for
 * the key's query rate (a catch-up's pages), since no event arrives until the connection is open.
 */
class ListenKey {
	/** The key the connection uses; undefined while none is (the exchange forgot it, or stopped). */
	current?: string;
	private keptAliveAt = 0;

	constructor(private readonly activation: Activation) {}

	due(now: number): boolean {
		return now - this.keptAliveAt >= STREAM_TIMINGS.keepAliveEveryMs;
	}

	async create(): Promise<string> {
		const { client, clock } = this.activation;
		const answer = (await client.request(STREAM_ENDPOINTS.createListenKey, { urgent: true })) as {
			listenKey: string;
		};
		this.keptAliveAt = clock.now();
		this.activation.state.listenKey = answer.listenKey;
		return answer.listenKey;
	}

	async delete(listenKey: string, options: { quiet?: boolean } = {}): Promise<void> {
		const { client, state, log } = this.activation;
		if (state.listenKey === listenKey) delete state.listenKey;
		try {
			await client.request(STREAM_ENDPOINTS.deleteListenKey, { qs: { listenKey }, urgent: true });
		} catch (error) {
			if (options.quiet && isServiceRejection(error)) return;
			log.warn(
				`the listen key could not be deleted (${(error as Error).message}); it expires on its own within ${USER_STREAM.listenKeyLifetimeMs / 60_000} minutes`,
			);
		}
	}

	/**
	 * Keeps the key alive. `gone`: the exchange no longer knows it (a new one is made);
	 * `unreachable`: the keep-alive failed otherwise and is tried again in a minute.
	 */
	async keepAlive(): Promise<'alive' | 'gone' | 'unreachable'> {
		const { client, clock, log } = this.activation;
		if (this.current === undefined) return 'gone';
		try {
			const qs = { listenKey: this.current };
			await client.request(STREAM_ENDPOINTS.keepListenKeyAlive, { qs, urgent: true });
			this.keptAliveAt = clock.now();
			return 'alive';
		} catch (error) {
			const reason = (error as Error).message;
			if (isServiceRejection(error)) {
				log.info(`the listen key is no longer valid (${reason}); a new one is created`);
				this.current = undefined;
				return 'gone';
			}
			log.warn(`the listen key could not be kept alive (${reason}); trying again in a minute`);
			this.keptAliveAt = clock.now() - STREAM_TIMINGS.keepAliveEveryMs + 60_000;
			return 'unreachable';
		}
	}
}

export class StreamSession {
	private stopped = false;
	private running?: Promise<void>;
	private socket?: StreamSocket;
	/** Connections in a row that could not be opened or caught up: the backoff's step. */
	private failures = 0;
	/** Whether the last catch-up failed: the connection it followed does not count as held. */
	private catchUpFailed = false;
	private readonly activation: Activation;
	private readonly listenKey: ListenKey;
	private readonly emitter: Emitter;
	private readonly outage: Outage;
	private readonly catchUps: CatchUps;

	constructor(
		context: ITriggerFunctions,
		client: ServiceClient,
		settings: StreamSettings,
		private readonly streamBase: string,
		private readonly WebSocket: WebSocketConstructor,
		clock: SessionClock = { now: Date.now, random: Math.random },
	) {
		const say = (level: 'info' | 'warn' | 'error') => (message: string) =>
			context.logger[level](`Trading Service Real-Time Trigger: ${message}`);
		this.activation = {
			context,
			node: context.getNode(),
			client,
			settings,
			clock,
			manual: context.getMode() === 'manual',
			state: emptyStreamState(),
			log: { info: say('info'), warn: say('warn'), error: say('error') },
		};
		this.listenKey = new ListenKey(this.activation);
		this.emitter = new Emitter(this.activation);
		this.outage = new Outage(this.activation);
		this.catchUps = new CatchUps({
			run: () => catchUp(this.activation, this.emitter),
			succeeded: () => this.whole(),
			failed: (reason) => {
				this.catchUpFailed = true;
				// The next connection catches up again.
				this.socket?.close(`the catch-up failed: ${reason}`);
			},
			stopped: () => this.stopped,
		});
	}

	/**
	 * Activation: the stored state, and over REST the baseline it lacks (n8n saves static data at the
	 * end of an activation, so it is kept even if no event follows); then the listen key, so a
	 * credential the exchange refuses fails the activation with its reason. The loop connects, then
	 * catches up beside the connection: with the baseline's events remembered, the first catch-up
	 * covers exactly the moments between the baseline and the connection.
	 */
	async start(): Promise<void> {
		const { context, client, node, settings, clock, manual, log } = this.activation;
		this.activation.account = await followedAccount(client, node, settings.account);
		if (followsFutures(settings.kinds))
			this.activation.contractAccount = await followedContractAccount(client, node);
		let leftover: string | undefined;
		if (!manual) {
			const stored = readStreamState(context.getWorkflowStaticData('node'));
			if (stored !== undefined) {
				this.emitter.restore(stored);
				leftover = stored.listenKey;
			}
			await takeBaseline(this.activation, this.emitter, stored === undefined);
		}
		// A killed process could not delete its key; a stopped one did, and the exchange says so.
		if (leftover !== undefined) await this.listenKey.delete(leftover, { quiet: true });
		this.listenKey.current = await this.listenKey.create();
		this.emitter.save();
		this.running = this.run(!manual).catch((error: Error) => {
			// Every step of the loop handles its own failures; this is a bug, said loudly.
			log.error(`the stream loop stopped: ${error.message}`);
			reportOutage(this.activation, clock.now(), error.message);
		});
	}

	async stop(): Promise<void> {
		const { clock } = this.activation;
		this.stopped = true;
		this.socket?.close('the workflow was deactivated');
		if (this.running !== undefined) {
			let done = false;
			const settle = () => (done = true);
			// The loop, then the catch-up in progress: both may still emit and save the state.
			const both = this.running.then(() => this.catchUps.idle());
			void both.then(settle, settle);
			const deadline = clock.now() + STOP_WAIT_MS;
			while (!done && clock.now() < deadline) await sleep(TICK_MS / 4);
		}
		const listenKey = this.listenKey.current;
		this.listenKey.current = undefined;
		if (listenKey !== undefined) await this.listenKey.delete(listenKey);
		this.emitter.save();
	}

	private async pause(ms: number): Promise<void> {
		const { clock } = this.activation;
		const until = clock.now() + ms;
		while (!this.stopped && clock.now() < until)
			await sleep(Math.min(TICK_MS, until - clock.now()));
	}

	private backoff(failures: number): number {
		const { firstBackoffMs, maxBackoffMs } = STREAM_TIMINGS;
		const base = Math.min(firstBackoffMs * 2 ** failures, maxBackoffMs);
		return Math.round(base * (0.8 + 0.4 * this.activation.clock.random()));
	}

	/** The stream is whole again: connected, and caught up. */
	private whole(): void {
		this.catchUpFailed = false;
		// A catch-up can end after its connection did: the outage goes on until the next one opens.
		if (this.socket === undefined) return;
		this.failures = 0;
		this.outage.end();
	}

	/**
	 * The loop: connect, then watch while the catch-up runs beside it (CatchUps); after every end,
	 * wait and connect again, without limit.
	 */
	private async run(catchUpFirst: boolean): Promise<void> {
		let catchUpNext = catchUpFirst && !this.activation.manual;
		while (!this.stopped) {
			let problem = '';
			try {
				if (this.listenKey.current === undefined) {
					const created = await this.listenKey.create();
					if (this.stopped) {
						await this.listenKey.delete(created);
						break;
					}
					this.listenKey.current = created;
				}
				const socket = await StreamSocket.open(
					this.WebSocket,
					socketUrlOf(this.streamBase, this.listenKey.current),
					{
						timeoutMs: OPEN_TIMEOUT_MS,
						now: this.activation.clock.now,
						stopped: () => this.stopped,
						onMessage: (message, text) => this.onMessage(message, text),
					},
				);
				this.socket = socket;
				// The backoff starts over, unless the catch-ups keep failing.
				if (!this.catchUpFailed) this.failures = 0;
				if (catchUpNext) this.catchUps.request();
				else this.whole();
				catchUpNext = !this.activation.manual;
				problem = (await this.watch(socket)) ?? '';
			} catch (error) {
				problem = (error as Error).message;
			}
			this.socket?.close();
			this.socket = undefined;
			if (this.stopped) break;
			this.activation.log.warn(`disconnected (${problem}); reconnecting`);
			this.outage.continue(problem);
			await this.pause(this.backoff(this.failures++));
			if (this.stopped) break;
			// The listen key may have expired while the stream was down.
			await this.listenKey.keepAlive();
		}
	}

	/** Watches one connection until it ends: the heartbeat, and the listen key's keep-alive. */
	private async watch(socket: StreamSocket): Promise<string | undefined> {
		let pingedAt = 0;
		while (!this.stopped) {
			if (socket.ended !== undefined) return socket.ended;
			const now = this.activation.clock.now();
			const silentMs = now - socket.lastMessageAt;
			if (silentMs >= STREAM_TIMINGS.silenceLimitMs) {
				socket.close(`nothing came for ${Math.round(silentMs / 1000)} s (no pong)`);
				return socket.ended;
			}
			if (now - pingedAt >= STREAM_TIMINGS.pingEveryMs) {
				socket.send({ ping: now });
				pingedAt = now;
			}
			if (this.listenKey.due(now) && (await this.listenKey.keepAlive()) === 'gone') {
				socket.close('the listen key expired');
				return socket.ended;
			}
			await sleep(TICK_MS);
		}
		return undefined;
	}

	/** A ping is answered here (the heartbeat); every other message is the emitter's. */
	private onMessage(message: unknown, text: string): void {
		if (message !== null && typeof message === 'object' && !Array.isArray(message)) {
			const control = message as IDataObject;
			if ('ping' in control) return this.socket?.send({ pong: control.ping });
			if ('pong' in control) return;
		}
		this.emitter.receive(message, text);
	}
}
