import { createHash } from 'node:crypto';

import type { Activation } from './activation';
import { FUTURES_KINDS, itemOf, kindOf, type StreamEvent, type StreamEventKind } from './events';
import { eventsOfMessage } from './messages';
import { positionKey, positionState, positionStep, unsettledPositions } from './positions';
import {
	FUTURES_OPEN_STATUSES,
	SeenEvents,
	balanceText,
	futuresListOf,
	trackOrder,
	writeStreamState,
	type PositionMark,
	type StreamState,
} from './streamState';

/**
 * Never back in time (docs/trigger.md): the socket opens before the catch-up reads, so a REST
 * answer may be older than a push that came meanwhile. Each order, balance and position keeps the
 * time of the state last taken for it, for the activation's life (after a restart, every answer of
 * the first catch-up is newer: its requests are sent after the new connection opened), and a REST
 * answer older than that state is neither emitted nor kept. A push is never dropped: older than a
 * state a REST answer showed, it is emitted but not kept. A fill read over REST is a past event:
 * emitted once, kept only when it is the newest known.
 */

/** The time of the state last taken for one order, balance or position. */
type Stamp = Pick<StreamEvent, 'time' | 'clock' | 'seenAt' | 'source'>;

/** Most orders, balances and positions whose time is kept; the oldest taken are forgotten first. */
export const MAX_STAMPS = 5000;

function subjectOf(event: StreamEvent): string {
	if (event.channel === 'order') return `order:${event.orderId}`;
	if (event.channel === 'balance') return `balance:${event.market}:${event.coin}`;
	return `position:${event.symbol}|${event.side}`;
}

/**
 * Whether `event` is older than the state `kept`: two exchange times as they are (at the same
 * millisecond the push wins: the stream is the exchange's own sequence); a REST answer without a
 * time of its own against a push on n8n's clock, the push's arrival against the request's send (the
 * two clocks may differ by the receive window; a push that arrived before the request left was in
 * its answer); of two REST answers, the later request's.
 */
export function isOlder(event: StreamEvent, kept: Stamp): boolean {
	const exchangeTimes = event.clock === 'exchange' && kept.clock === 'exchange';
	if (event.source === 'stream')
		return kept.source === 'catchUp' && exchangeTimes && event.time < kept.time;
	if (exchangeTimes)
		return event.time < kept.time || (event.time === kept.time && kept.source === 'stream');
	return kept.source === 'stream' ? kept.seenAt >= event.seenAt : kept.seenAt > event.seenAt;
}

/** The time of the state last taken for each order, balance and position of one activation. */
export class Stamps {
	private readonly kept = new Map<string, Stamp>();

	/** Whether `event` is newer than the state kept for its subject (or the first one seen). */
	freshness(event: StreamEvent): 'newer' | 'older' {
		const kept = this.kept.get(subjectOf(event));
		return kept !== undefined && isOlder(event, kept) ? 'older' : 'newer';
	}

	take(event: StreamEvent): void {
		const subject = subjectOf(event);
		const { time, clock, seenAt, source } = event;
		// A Map keeps insertion order: re-inserted, the subject is the newest.
		this.kept.delete(subject);
		this.kept.set(subject, { time, clock, seenAt, source });
		while (this.kept.size > MAX_STAMPS) this.kept.delete(this.kept.keys().next().value as string);
	}
}

/** n8n's execution deduplication key is at most this long. */
const MAX_DEDUPLICATION_KEY = 255;

/**
 * Turns events into executions: an event of a chosen kind that passes the filters is emitted once,
 * whichever source brought it. What each event says of open orders, balances, positions and the
 * cursor is kept in the state, which is written before each emit.
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
		const read = eventsOfMessage(message, clock.now(), account?.accountId, contractAccount);
		if (read.skipped > 0)
			log.warn(
				`${read.skipped} stream event(s) without an order ID, status, symbol or filled quantity (or a position's symbol, side or size) were ignored`,
			);
		if (read.foreign > 0)
			log.info(
				`${read.foreign} stream event(s) of another account than ${account?.accountId ?? ''}${contractAccount === undefined ? '' : ` (futures ${contractAccount})`} were ignored`,
			);
		for (const event of read.events) this.handle(event);
	}

	/** What an event says of open orders, balances and the cursor, unless older: whether kept. */
	keep(event: StreamEvent): boolean {
		if (this.stamps.freshness(event) === 'older') return false;
		this.stamps.take(event);
		this.track(event);
		return true;
	}

	private track(event: StreamEvent): void {
		const { state } = this.activation;
		if (event.channel === 'order' && event.market === 'contract') {
			// Followed once the futures baseline is taken (futuresCatchUp.ts).
			const tag = `${event.symbol}|${futuresListOf(event.orderType)}`;
			if (state.futuresOpen !== undefined)
				trackOrder(state.futuresOpen, event.orderId, tag, event.status, FUTURES_OPEN_STATUSES);
		} else if (event.channel === 'order')
			trackOrder(state.open, event.orderId, event.symbol, event.status);
		// The catch-up compares spot balances only (contract balances are read nowhere else).
		else if (event.channel === 'balance' && event.market === 'spot')
			state.balances[event.coin] = balanceText(event.free, event.locked);
		if (event.source === 'stream' && event.time > state.cursor) state.cursor = event.time;
	}

	/** An event that exists already at a baseline: seen, never emitted, not kept over a newer one. */
	remember(event: StreamEvent): void {
		if (this.stamps.freshness(event) === 'older') return;
		this.stamps.take(event);
		if (this.startingKind(event) === undefined) return;
		if (event.channel === 'order' && event.otherId) this.seen.add(event.otherId, 0);
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
		const { clock } = this.activation;
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
			const { positions } = this.activation.state;
			const step = positionStep(positions, this.replays, event);
			if (step === undefined) return;
			positions[positionKey(event.symbol, event.side)] = step.mark;
			return this.emit({ ...event, id: step.event.id }, kind);
		}
		const otherId = event.channel === 'order' ? event.otherId : undefined;
		if (this.seen.has(event.id) || (otherId !== undefined && this.seen.has(otherId))) return;
		if (otherId !== undefined) this.seen.add(otherId, clock.now());
		this.emit(event, kind);
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

	/**
	 * The kind an event starts the workflow as: a chosen one, within the filters (Contract for
	 * positions and the futures kinds, Symbol for the other order kinds, Coin for balances); else none.
	 */
	private startingKind(event: StreamEvent): StreamEventKind | undefined {
		const { settings } = this.activation;
		const kind = kindOf(event, settings.kinds);
		if (kind === undefined) return undefined;
		const [wanted, actual] =
			event.channel === 'balance'
				? [settings.coin, event.coin]
				: [FUTURES_KINDS.includes(kind) ? settings.contract : settings.symbol, event.symbol];
		return wanted === undefined || actual === wanted ? kind : undefined;
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
