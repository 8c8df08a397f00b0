import type { StreamEvent } from './events';

/**
 * The stream never goes back in time. The trigger opens the socket first and catches up over REST
 * after, so a push can arrive while a REST answer is on its way; that answer may then be older than
 * the push. Each order, balance and position therefore keeps the time of the state last taken for
 * it, and a REST answer older than that state is neither emitted nor kept:
 *
 * - two exchange times (a push's event time, an order's update time, a fill's time) are compared as
 *   they are; at the same millisecond the push wins, the stream being the exchange's own sequence;
 * - a REST answer without a time of its own (balances, positions: stamped with n8n's clock when its
 *   request was sent) is older than a push that arrived at or after that send time. Both times are
 *   n8n's: the exchange stamps its pushes with its own clock, which may differ from n8n's by up to
 *   the receive window, while a push that arrived before the request left was already in its answer
 *   (the exchange pushes a change once it is made);
 * - of two REST answers, the later request's is the newer.
 *
 * A push is never dropped: the stream brings changes in their order. It is older than the state
 * kept only after a REST answer showed a later update of the same order; it is still emitted (a
 * change nobody was told of), but not kept. A fill read over REST is a past event, not a state: it
 * is emitted once whatever came after it, and kept only when it is the newest known.
 *
 * The times live as long as the activation: after a restart, every REST answer of the first
 * catch-up is newer than what the previous process kept, its requests being sent after the new
 * connection opened.
 */

/** The time of the state last taken for one order, balance or position. */
interface Stamp {
	time: number;
	clock: 'exchange' | 'n8n';
	seenAt: number;
	source: 'stream' | 'catchUp';
}

/** Most orders, balances and positions whose time is kept; the oldest taken are forgotten first. */
export const MAX_STAMPS = 5000;

/** What the ordering rule says of an event. */
export type Freshness = 'newer' | 'older';

/** The order, balance or position an event is a state of. */
export function subjectOf(event: StreamEvent): string {
	if (event.channel === 'order') return `order:${event.orderId}`;
	if (event.channel === 'balance') return `balance:${event.market}:${event.coin}`;
	return `position:${event.symbol}|${event.side}`;
}

/** Whether `event` is older than the state `kept` (the rules above). */
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
	freshness(event: StreamEvent): Freshness {
		const kept = this.kept.get(subjectOf(event));
		return kept !== undefined && isOlder(event, kept) ? 'older' : 'newer';
	}

	/** `event` is now the state of its subject. */
	take(event: StreamEvent): void {
		const subject = subjectOf(event);
		const { time, clock, seenAt, source } = event;
		// A Map keeps insertion order: re-inserted, the subject is the newest.
		this.kept.delete(subject);
		this.kept.set(subject, { time, clock, seenAt, source });
		while (this.kept.size > MAX_STAMPS) this.kept.delete(this.kept.keys().next().value as string);
	}
}
