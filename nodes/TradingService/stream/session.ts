import { createHash } from 'node:crypto';
import {
	NodeOperationError,
	sleep,
	type IDataObject,
	type INode,
	type ITriggerFunctions,
} from 'n8n-workflow';

import { USER_STREAM } from '../constants';
import { accountScope, type AccountScope } from '../helpers/accountScope';
import { formatDecimal, parseDecimal } from '../helpers/decimals';
import { ENDPOINTS, isServiceRejection, type ServiceClient } from '../transport';
import { StreamSocket, type WebSocketConstructor } from '../transport/socket';
import { socketUrlOf } from './address';
import { catchUpBalances, catchUpOrders } from './catchUp';
import { eventsOfMessage, itemOf, kindOf, type StreamEvent } from './events';
import type { StreamSettings } from './settings';
import {
	STREAM_STATE_VERSION,
	SeenEvents,
	balanceText,
	readStreamState,
	trackOrder,
	writeStreamState,
	type StreamState,
} from './state';

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
/** n8n's execution deduplication key is at most this long. */
const MAX_DEDUPLICATION_KEY = 255;

const canonical = (text: string): string => {
	const value = parseDecimal(text);
	return value === undefined ? text : formatDecimal(value);
};

/**
 * The session's timings: the exchange's (constants.ts) in n8n. Tests shorten them to watch a
 * heartbeat fail or an outage be reported within seconds; nothing else changes them.
 */
export const STREAM_TIMINGS = {
	pingEveryMs: USER_STREAM.pingEveryMs as number,
	silenceLimitMs: USER_STREAM.silenceLimitMs as number,
	keepAliveEveryMs: USER_STREAM.keepAliveEveryMs as number,
	firstBackoffMs: USER_STREAM.firstBackoffMs as number,
	maxBackoffMs: USER_STREAM.maxBackoffMs as number,
	/** What the Report Outage After option counts in. */
	minuteMs: 60_000,
};

export interface SessionClock {
	now: () => number;
	random: () => number;
}

export class StreamSession {
	private stopped = false;
	private running?: Promise<void>;
	private socket?: StreamSocket;
	private listenKey?: string;
	private state: StreamState;
	private seen: SeenEvents;
	private readonly node: INode;
	private readonly manual: boolean;
	private keptAliveAt = 0;
	/** The trading account whose events start the workflow; resolved at activation. */
	private scope?: AccountScope;
	/** Events emitted: a manual run emits only the first. */
	private emitted = 0;

	constructor(
		private readonly context: ITriggerFunctions,
		private readonly client: ServiceClient,
		private readonly settings: StreamSettings,
		private readonly streamBase: string,
		private readonly WebSocket: WebSocketConstructor,
		private readonly clock: SessionClock = { now: Date.now, random: Math.random },
	) {
		this.node = context.getNode();
		this.manual = context.getMode() === 'manual';
		this.state = {
			version: STREAM_STATE_VERSION,
			cursor: 0,
			recent: [],
			savedAt: 0,
			open: {},
			balances: {},
		};
		this.seen = new SeenEvents();
	}

	/**
	 * Activation: reads the stored state, or takes the baseline over REST (n8n saves static data at
	 * the end of an activation, so the baseline is kept even if no event follows), and creates the
	 * listen key, so a credential the exchange refuses fails the activation with the exchange's
	 * reason. The loop connects, then catches up: with the baseline's events remembered, the first
	 * catch-up covers exactly the moments between the baseline and the connection.
	 */
	async start(): Promise<void> {
		this.scope = await this.resolveScope();
		let leftover: string | undefined;
		if (!this.manual) {
			const stored = readStreamState(this.context.getWorkflowStaticData('node'));
			if (stored !== undefined) {
				this.state = stored;
				this.seen = SeenEvents.settled(stored);
				leftover = stored.listenKey;
			} else {
				await this.takeBaseline();
			}
		}
		// A killed process could not delete its key; a stopped one did, and the exchange says so.
		if (leftover !== undefined) await this.deleteListenKey(leftover, { quiet: true });
		this.listenKey = await this.createListenKey();
		this.saveState();
		this.running = this.run(!this.manual).catch((error: Error) => {
			// Every step of the loop handles its own failures; this is a bug, said loudly.
			this.context.logger.error(
				`Trading Service Real-Time Trigger: the stream loop stopped: ${error.message}`,
			);
			this.reportOutage(this.clock.now(), error.message);
		});
	}

	/** Deactivation: closes the connection, then deletes the listen key. */
	async stop(): Promise<void> {
		this.stopped = true;
		this.socket?.close('the workflow was deactivated');
		if (this.running !== undefined) {
			let done = false;
			void this.running.then(
				() => (done = true),
				() => (done = true),
			);
			const deadline = this.clock.now() + STOP_WAIT_MS;
			while (!done && this.clock.now() < deadline) await sleep(TICK_MS / 4);
		}
		const listenKey = this.listenKey;
		this.listenKey = undefined;
		if (listenKey !== undefined) await this.deleteListenKey(listenKey);
		this.saveState();
	}

	/**
	 * The account the trigger follows. A listen key carries the events of the key's own trading
	 * account only (docs/api.md, user data stream), so an account other than that one could never
	 * be followed live: refused at activation rather than silently caught up on reconnects only.
	 */
	private async resolveScope(): Promise<AccountScope> {
		const own = await accountScope(this.client, this.node, undefined);
		if (this.settings.account === undefined || this.settings.account === own.accountId) return own;
		const chosen = await accountScope(this.client, this.node, this.settings.account);
		throw new NodeOperationError(
			this.node,
			`Account ${chosen.accountId} cannot be followed with this API key's real-time stream`,
			{
				description: `The exchange's user data stream carries the events of the API key's own trading account (${own.accountId}) only. Leave Account empty, or use an API key of account ${chosen.accountId} (a sub account's own key).`,
			},
		);
	}

	private get account(): AccountScope {
		if (this.scope === undefined) throw new Error('the account is resolved at activation');
		return this.scope;
	}

	/**
	 * First activation: what exists is remembered, nothing is emitted. The order changes of the
	 * catch-up window before now are remembered as seen, so the first catch-up does not take them
	 * for new.
	 */
	private async takeBaseline(): Promise<void> {
		const now = this.clock.now();
		this.state.cursor = now;
		const found = await catchUpOrders(this.client, this.node, this.state, now, this.account);
		for (const change of found.orders) {
			const event: StreamEvent = { channel: 'order', ...change };
			if (kindOf(event, this.settings.kinds) !== undefined && this.matchesFilters(event))
				this.seen.add(event.id, 0);
		}
		this.state.open = found.open;
		if (this.settings.kinds.has('balanceChanged')) await this.rememberBalances();
	}

	private async rememberBalances(): Promise<void> {
		const snapshot = await catchUpBalances(this.client, {}, this.clock.now(), () => false);
		for (const line of snapshot)
			this.state.balances[line.coin] = balanceText(
				canonical(line.free),
				canonical(line.locked ?? '0'),
			);
	}

	private async createListenKey(): Promise<string> {
		const answer = (await this.client.request(ENDPOINTS.createListenKey)) as { listenKey: string };
		this.keptAliveAt = this.clock.now();
		this.state.listenKey = answer.listenKey;
		return answer.listenKey;
	}

	private async deleteListenKey(
		listenKey: string,
		options: { quiet?: boolean } = {},
	): Promise<void> {
		if (this.state.listenKey === listenKey) delete this.state.listenKey;
		try {
			await this.client.request(ENDPOINTS.deleteListenKey, { qs: { listenKey } });
		} catch (error) {
			if (options.quiet && isServiceRejection(error)) return;
			// It expires on its own within the hour.
			this.context.logger.warn(
				`Trading Service Real-Time Trigger: the listen key could not be deleted (${(error as Error).message}); it expires on its own within ${USER_STREAM.listenKeyLifetimeMs / 60_000} minutes`,
			);
		}
	}

	/**
	 * Keeps the listen key alive. `gone`: the exchange no longer knows it (a new one is made);
	 * `unreachable`: the keep-alive failed otherwise and is tried again in a minute.
	 */
	private async keepAlive(): Promise<'alive' | 'gone' | 'unreachable'> {
		if (this.listenKey === undefined) return 'gone';
		try {
			await this.client.request(ENDPOINTS.keepListenKeyAlive, {
				qs: { listenKey: this.listenKey },
			});
			this.keptAliveAt = this.clock.now();
			return 'alive';
		} catch (error) {
			if (isServiceRejection(error)) {
				this.context.logger.info(
					`Trading Service Real-Time Trigger: the listen key is no longer valid (${(error as Error).message}); a new one is created`,
				);
				this.listenKey = undefined;
				return 'gone';
			}
			this.context.logger.warn(
				`Trading Service Real-Time Trigger: the listen key could not be kept alive (${(error as Error).message}); trying again in a minute`,
			);
			this.keptAliveAt = this.clock.now() - STREAM_TIMINGS.keepAliveEveryMs + 60_000;
			return 'unreachable';
		}
	}

	private async pause(ms: number): Promise<void> {
		const until = this.clock.now() + ms;
		while (!this.stopped && this.clock.now() < until)
			await sleep(Math.min(TICK_MS, until - this.clock.now()));
	}

	private backoff(failures: number): number {
		const base = Math.min(
			STREAM_TIMINGS.firstBackoffMs * 2 ** failures,
			STREAM_TIMINGS.maxBackoffMs,
		);
		return Math.round(base * (0.8 + 0.4 * this.clock.random()));
	}

	/** The loop: connect, catch up, watch; after every end, wait and connect again, without limit. */
	private async run(catchUpFirst: boolean): Promise<void> {
		let catchUp = catchUpFirst;
		let failures = 0;
		let outageSince: number | undefined;
		let reported = false;
		let lastProblem = '';
		while (!this.stopped) {
			try {
				if (this.listenKey === undefined) {
					const created = await this.createListenKey();
					if (this.stopped) {
						await this.deleteListenKey(created);
						break;
					}
					this.listenKey = created;
				}
				const socket = await StreamSocket.open(
					this.WebSocket,
					socketUrlOf(this.streamBase, this.listenKey),
					{
						timeoutMs: OPEN_TIMEOUT_MS,
						now: this.clock.now,
						stopped: () => this.stopped,
						onMessage: (message, text) => this.onMessage(message, text),
					},
				);
				this.socket = socket;
				if (catchUp && !this.manual) await this.catchUp();
				catchUp = true;
				failures = 0;
				if (reported)
					this.context.logger.info(
						'Trading Service Real-Time Trigger: the stream is back; what happened during the outage was read over REST',
					);
				outageSince = undefined;
				reported = false;
				lastProblem = (await this.watch(socket)) ?? '';
			} catch (error) {
				lastProblem = (error as Error).message;
			}
			this.socket?.close();
			this.socket = undefined;
			if (this.stopped) break;
			this.context.logger.warn(
				`Trading Service Real-Time Trigger: disconnected (${lastProblem}); reconnecting`,
			);
			outageSince ??= this.clock.now();
			if (
				!reported &&
				this.clock.now() - outageSince >=
					this.settings.outageReportMinutes * STREAM_TIMINGS.minuteMs
			) {
				this.reportOutage(outageSince, lastProblem);
				reported = true;
			}
			await this.pause(this.backoff(failures++));
			if (this.stopped) break;
			// The listen key may have expired while the stream was down.
			await this.keepAlive();
		}
	}

	/** Watches one connection until it ends; returns why. */
	private async watch(socket: StreamSocket): Promise<string | undefined> {
		let pingedAt = 0;
		while (!this.stopped) {
			const ended = socket.ended;
			if (ended !== undefined) return ended;
			const now = this.clock.now();
			if (now - socket.lastMessageAt >= STREAM_TIMINGS.silenceLimitMs) {
				socket.close(
					`nothing came for ${Math.round((now - socket.lastMessageAt) / 1000)} s (no pong)`,
				);
				return socket.ended;
			}
			if (now - pingedAt >= STREAM_TIMINGS.pingEveryMs) {
				socket.send({ ping: now });
				pingedAt = now;
			}
			if (
				now - this.keptAliveAt >= STREAM_TIMINGS.keepAliveEveryMs &&
				(await this.keepAlive()) === 'gone'
			) {
				socket.close('the listen key expired');
				return socket.ended;
			}
			await sleep(TICK_MS);
		}
		return undefined;
	}

	private onMessage(message: unknown, text: string): void {
		if (message !== null && typeof message === 'object' && !Array.isArray(message)) {
			const control = message as IDataObject;
			if ('ping' in control) {
				this.socket?.send({ pong: control.ping });
				return;
			}
			if ('pong' in control) return;
		}
		if (message === undefined) {
			this.context.logger.warn(
				`Trading Service Real-Time Trigger: a stream message that is not JSON was ignored (${text.length} characters)`,
			);
			return;
		}
		const { events, skipped, foreign } = eventsOfMessage(
			message,
			this.clock.now(),
			this.scope?.accountId,
		);
		if (skipped > 0)
			this.context.logger.warn(
				`Trading Service Real-Time Trigger: ${skipped} stream event(s) without an order ID, status, symbol or filled quantity were ignored`,
			);
		if (foreign > 0)
			this.context.logger.info(
				`Trading Service Real-Time Trigger: ${foreign} stream event(s) of another account than ${this.scope?.accountId ?? ''} were ignored`,
			);
		for (const event of events) this.handle(event);
	}

	/** What a catch-up found, handled like stream events: each is emitted unless seen already. */
	private async catchUp(): Promise<void> {
		const now = this.clock.now();
		const found = await catchUpOrders(this.client, this.node, this.state, now, this.account);
		// Every change before the catch-up started has now been read.
		this.state.cursor = Math.max(this.state.cursor, now);
		for (const { orderId, reason } of found.failed)
			this.context.logger.warn(
				`Trading Service Real-Time Trigger: order ${orderId} could not be read in the catch-up (${reason}); the next catch-up tries again`,
			);
		for (const orderId of found.gone) {
			delete this.state.open[orderId];
			this.context.logger.info(
				`Trading Service Real-Time Trigger: order ${orderId}, last seen open, is not an order of account ${this.account.accountId} on the exchange; it is no longer looked for`,
			);
		}
		// Orders the stream reported while the catch-up read stay tracked as the stream said.
		for (const change of found.orders) this.handle({ channel: 'order', ...change });
		const open: Record<string, string> = { ...found.open };
		for (const [orderId, symbol] of Object.entries(this.state.open))
			if (found.open[orderId] !== undefined) open[orderId] = symbol;
		this.state.open = open;
		if (this.settings.kinds.has('balanceChanged')) {
			if (Object.keys(this.state.balances).length === 0) {
				await this.rememberBalances();
			} else {
				const changes = await catchUpBalances(
					this.client,
					this.state.balances,
					now,
					(coin, free, locked) =>
						this.state.balances[coin] === balanceText(canonical(free), canonical(locked)),
				);
				for (const change of changes) this.handle({ channel: 'balance', ...change });
			}
		}
		this.saveState();
	}

	private handle(event: StreamEvent): void {
		if (event.channel === 'order')
			trackOrder(this.state.open, event.orderId, event.symbol, event.status);
		// The catch-up compares spot balances only (contract balances are read nowhere else).
		else if (event.market === 'spot')
			this.state.balances[event.coin] = balanceText(
				canonical(event.free),
				canonical(event.locked ?? '0'),
			);
		if (event.source === 'stream' && event.time > this.state.cursor) this.state.cursor = event.time;
		const kind = kindOf(event, this.settings.kinds);
		// Only what may start the workflow is remembered: the 1,000 IDs kept then cover 1,000
		// executions, not placements and balance moves nobody asked for.
		if (kind === undefined || !this.matchesFilters(event) || this.seen.has(event.id)) return;
		this.seen.add(event.id, this.clock.now());
		if (this.manual) {
			if (this.emitted > 0) return;
		} else {
			this.saveState();
		}
		this.emitted++;
		this.context.emit(
			[[{ json: itemOf(event, kind) }]],
			undefined,
			undefined,
			this.manual ? undefined : this.deduplicationKey(event.id),
		);
	}

	private matchesFilters(event: StreamEvent): boolean {
		if (event.channel === 'order')
			return this.settings.symbol === undefined || event.symbol === this.settings.symbol;
		return this.settings.coin === undefined || event.coin === this.settings.coin;
	}

	/** n8n refuses a second execution with the same key, should a crash make the trigger emit again. */
	private deduplicationKey(eventId: string): string {
		const workflowId = this.context.getWorkflow().id ?? '';
		const key = `trading-service:${workflowId}:${this.node.id}:${eventId}`;
		return key.length <= MAX_DEDUPLICATION_KEY
			? key
			: `trading-service:${createHash('sha256').update(key).digest('hex')}`;
	}

	private saveState(): void {
		if (this.manual) return;
		this.state.recent = this.seen.recent();
		this.state.savedAt = this.clock.now();
		writeStreamState(this.context.getWorkflowStaticData('node'), this.state);
	}

	private reportOutage(since: number, problem: string): void {
		const minutes = Math.max(1, Math.round((this.clock.now() - since) / STREAM_TIMINGS.minuteMs));
		const error = new NodeOperationError(
			this.node,
			`The exchange's real-time stream has been unreachable for ${minutes} minute${minutes === 1 ? '' : 's'}`,
			{
				description: `Last problem: ${problem}. The trigger keeps reconnecting; when the stream is back it reads the orders of the outage over REST, so no order event is lost. Check the Base URL and Stream URL of the credential and the exchange's status.`,
			},
		);
		const saveFailed = (this.context as Partial<ITriggerFunctions>).saveFailedExecution;
		if (typeof saveFailed === 'function') saveFailed.call(this.context, error);
		this.context.logger.error(
			`Trading Service Real-Time Trigger: ${error.message}. ${error.description ?? ''}`,
		);
	}
}
