import { NodeOperationError, sleep, type IDataObject, type ITriggerFunctions } from 'n8n-workflow';

import { accountScope, type AccountScope } from '../helpers/accountScope';
import type { ServiceClient } from '../transport';
import { StreamSocket, type WebSocketConstructor } from '../transport/socket';
import { STREAM_TIMINGS, type Activation, type SessionClock } from './activation';
import { socketUrlOf } from './address';
import { catchUp, takeBaseline } from './catchUp';
import { CatchUps } from './catchUps';
import { Emitter } from './emitter';
import { ListenKey } from './listenKey';
import { Outage, reportOutage } from './outage';
import { contractAccountOf } from './positions';
import type { StreamSettings } from './settings';
import { emptyStreamState, readStreamState } from './state';

/**
 * One activation of the real-time trigger: its listen key, its connection and the loop that keeps
 * both alive. Waits are short sleeps that look at `stopped` in between (n8n's scanner allows no
 * timers), so closing the workflow ends every wait within TICK_MS.
 */

/** Step of every wait and of the heartbeat watch. */
const TICK_MS = 200;
/** How long opening a connection may take. */
const OPEN_TIMEOUT_MS = 15_000;
/** How long closing waits for a request in flight before it deletes the listen key anyway. */
const STOP_WAIT_MS = 3_000;

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
		const prefix = 'Trading Service Real-Time Trigger: ';
		this.activation = {
			context,
			node: context.getNode(),
			client,
			settings,
			clock,
			manual: context.getMode() === 'manual',
			state: emptyStreamState(),
			log: {
				info: (message) => context.logger.info(prefix + message),
				warn: (message) => context.logger.warn(prefix + message),
				error: (message) => context.logger.error(prefix + message),
			},
		};
		this.listenKey = new ListenKey(this.activation);
		this.emitter = new Emitter(this.activation);
		this.outage = new Outage(this.activation);
		this.catchUps = new CatchUps({
			run: () => catchUp(this.activation, this.emitter, this.account),
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
	 * Activation: reads the stored state, or takes the baseline over REST (n8n saves static data at
	 * the end of an activation, so the baseline is kept even if no event follows), and creates the
	 * listen key, so a credential the exchange refuses fails the activation with the exchange's
	 * reason. The loop connects, then catches up beside the connection: with the baseline's events
	 * remembered, the first catch-up covers exactly the moments between the baseline and the
	 * connection.
	 */
	async start(): Promise<void> {
		const { context, clock, manual, log } = this.activation;
		this.activation.account = await this.resolveScope();
		if (this.activation.settings.kinds.has('positionChanged'))
			this.activation.contractAccount = await this.resolveContractAccount();
		let leftover: string | undefined;
		if (!manual) {
			const stored = readStreamState(context.getWorkflowStaticData('node'));
			if (stored !== undefined) {
				this.emitter.restore(stored);
				leftover = stored.listenKey;
			} else {
				await takeBaseline(this.activation, this.emitter, this.account);
			}
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

	/** Deactivation: closes the connection, then deletes the listen key. */
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

	/**
	 * The account the trigger follows. A listen key carries the events of the key's own trading
	 * account only (docs/api.md, user data stream), so an account other than that one could never
	 * be followed live: refused at activation rather than silently caught up on reconnects only.
	 */
	private async resolveScope(): Promise<AccountScope> {
		const { client, node, settings } = this.activation;
		const own = await accountScope(client, node, undefined);
		if (settings.account === undefined || settings.account === own.accountId) return own;
		const chosen = await accountScope(client, node, settings.account);
		throw new NodeOperationError(
			node,
			`Account ${chosen.accountId} cannot be followed with this API key's real-time stream`,
			{
				description: `The exchange's user data stream carries the events of the API key's own trading account (${own.accountId}) only. Leave Account empty, or use an API key of account ${chosen.accountId} (a sub account's own key).`,
			},
		);
	}

	/**
	 * The futures account whose positions Position Changed follows: the key's own (account type 3).
	 * A key without one (a sub account's key) could never see a position event: refused at activation.
	 */
	private async resolveContractAccount(): Promise<string> {
		const { client, node } = this.activation;
		const found = contractAccountOf(await client.keyAccounts());
		if (found !== undefined) return found;
		throw new NodeOperationError(node, 'This API key has no futures account of its own', {
			description:
				"Position Changed follows the positions of the API key's own futures account (account type 3), and the exchange lists none for this key (a sub account's key has none), or several. Remove Position Changed from Events, or use the main account's API key.",
		});
	}

	private get account(): AccountScope {
		if (this.activation.account === undefined)
			throw new Error('the account is resolved at activation');
		return this.activation.account;
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
	 * The loop: connect, then watch while the catch-up runs beside it (catchUps.ts), so that a
	 * connection that drops during a catch-up is opened again at once; after every end, wait and
	 * connect again, without limit.
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
				// A connection opened: the next drop waits the first backoff step again, unless the
				// catch-ups keep failing.
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
