import { createHash } from 'node:crypto';

import type { Activation } from './activation';
import { itemOf, kindOf, type StreamEvent, type StreamEventKind } from './events';
import { eventsOfMessage } from './messages';
import { Stamps } from './ordering';
import { positionKey, positionState, positionStep, unsettledPositions } from './positions';
import {
	SeenEvents,
	balanceText,
	trackOrder,
	writeStreamState,
	type PositionMark,
	type StreamState,
} from './state';

/** n8n's execution deduplication key is at most this long. */
const MAX_DEDUPLICATION_KEY = 255;

/**
 * Turns events into executions: an event of a chosen kind that passes the filters is emitted
 * once, whichever source brought it (stream or catch-up). What each event says of open orders,
 * balances, positions and the cursor is kept in the state, which is written before each emit. A
 * position event is one when it changes the position's last known state (positions.ts). An event
 * older than the state kept for its order, balance or position (ordering.ts) is not kept, and, when
 * it is a REST answer's state, not emitted either.
 */
export class Emitter {
	private seen = new SeenEvents();
	private readonly stamps = new Stamps();
	/** Position changes emitted just before a restart, to be emitted again with their IDs. */
	private replays = new Map<string, PositionMark>();
	/** Events emitted: a manual run emits only the first. */
	private emitted = 0;

	constructor(private readonly activation: Activation) {}

	/** The state of an earlier activation, its events trusted as far as they are settled. */
	restore(stored: StreamState): void {
		this.activation.state = stored;
		this.seen = SeenEvents.settled(stored);
		this.replays = unsettledPositions(stored, this.seen);
	}

	/** A stream message that is no heartbeat: its events, each handled. */
	receive(message: unknown, text: string): void {
		const { clock, account, contractAccount, log } = this.activation;
		if (message === undefined)
			return log.warn(`a stream message that is not JSON was ignored (${text.length} characters)`);
		const { events, skipped, foreign } = eventsOfMessage(
			message,
			clock.now(),
			account?.accountId,
			contractAccount,
		);
		if (skipped > 0)
			log.warn(
				`${skipped} stream event(s) without an order ID, status, symbol or filled quantity (or a position's symbol, side or size) were ignored`,
			);
		if (foreign > 0)
			log.info(
				`${foreign} stream event(s) of another account than ${account?.accountId ?? ''}${contractAccount === undefined ? '' : ` (futures ${contractAccount})`} were ignored`,
			);
		for (const event of events) this.handle(event);
	}

	/**
	 * What an event says of open orders, balances and the cursor, kept unless it is older than what
	 * is known (ordering.ts). Says whether it was.
	 */
	keep(event: StreamEvent): boolean {
		if (this.stamps.freshness(event) === 'older') return false;
		this.stamps.take(event);
		this.track(event);
		return true;
	}

	private track(event: StreamEvent): void {
		const { state } = this.activation;
		if (event.channel === 'order')
			trackOrder(state.open, event.orderId, event.symbol, event.status);
		// The catch-up compares spot balances only (contract balances are read nowhere else).
		else if (event.channel === 'balance' && event.market === 'spot')
			state.balances[event.coin] = balanceText(event.free, event.locked);
		if (event.source === 'stream' && event.time > state.cursor) state.cursor = event.time;
	}

	/** An event that exists already at the first activation: seen, never emitted. */
	remember(event: StreamEvent): void {
		this.stamps.take(event);
		if (this.startingKind(event) === undefined) return;
		if (event.channel !== 'position') return this.seen.add(event.id, 0);
		const state = positionState(event);
		const key = positionKey(event.symbol, event.side);
		this.activation.state.positions[key] = { state, from: state, id: '' };
	}

	/**
	 * An event from either source: kept, then emitted if it may start the workflow, once. One older
	 * than what is known is not kept; of those, only a push (a change nobody was told of) and a fill
	 * read over REST (a past event, not a state) are still emitted.
	 */
	handle(event: StreamEvent): void {
		const kept = this.keep(event);
		const history = event.source === 'stream' || (event.channel === 'order' && !!event.lastFill);
		if (!kept && !history) return;
		const kind = this.startingKind(event);
		// Only what may start the workflow is remembered: the 1,000 IDs kept then cover 1,000
		// executions, not placements and balance moves nobody asked for.
		if (kind === undefined) return;
		if (event.channel === 'position') {
			// A position is a state: one older than the kept one is no change.
			if (!kept) return;
			// A change of the last known position, whatever its ID: kept, then emitted.
			const { positions } = this.activation.state;
			const step = positionStep(positions, this.replays, event);
			if (step === undefined) return;
			positions[positionKey(event.symbol, event.side)] = step.mark;
			return this.emit({ ...event, id: step.event.id }, kind);
		}
		if (!this.seen.has(event.id)) this.emit(event, kind);
	}

	private emit(event: StreamEvent, kind: StreamEventKind): void {
		const { context, clock, manual } = this.activation;
		this.seen.add(event.id, clock.now());
		if (manual && this.emitted > 0) return;
		if (!manual) this.save();
		this.emitted++;
		const deduplicationKey = manual ? undefined : this.deduplicationKey(event.id);
		context.emit([[{ json: itemOf(event, kind) }]], undefined, undefined, deduplicationKey);
	}

	save(): void {
		const { context, clock, manual, state } = this.activation;
		if (manual) return;
		state.recent = this.seen.recent();
		state.savedAt = clock.now();
		writeStreamState(context.getWorkflowStaticData('node'), state);
	}

	/** The kind an event starts the workflow as: a chosen one, within the filters; else none. */
	private startingKind(event: StreamEvent): StreamEventKind | undefined {
		const { settings } = this.activation;
		const [wanted, actual] =
			event.channel === 'order'
				? [settings.symbol, event.symbol]
				: event.channel === 'position'
					? [settings.contract, event.symbol]
					: [settings.coin, event.coin];
		return wanted === undefined || actual === wanted ? kindOf(event, settings.kinds) : undefined;
	}

	/** n8n refuses a second execution with the same key, should a crash make the trigger emit again. */
	private deduplicationKey(eventId: string): string {
		const { context, node } = this.activation;
		const key = `trading-service:${context.getWorkflow().id ?? ''}:${node.id}:${eventId}`;
		return key.length <= MAX_DEDUPLICATION_KEY
			? key
			: `trading-service:${createHash('sha256').update(key).digest('hex')}`;
	}
}
