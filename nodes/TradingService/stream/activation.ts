import type { INode, ITriggerFunctions } from 'n8n-workflow';

import type { AccountScope } from '../helpers/accountScope';
import type { ServiceClient } from '../transport';
import type { StreamSettings } from './settings';
import type { StreamState } from './state';

/**
 * The user data stream (HashKey PRO and Global documentation of the same API family; the UAE page
 * does not cover it, docs/api.md "User data stream"). The real-time trigger's timings follow.
 */
export const USER_STREAM = {
	/** A listen key lives this long after it is created or kept alive. */
	listenKeyLifetimeMs: 60 * 60_000,
	/** The documentation recommends a keep-alive about every 30 minutes. */
	keepAliveEveryMs: 30 * 60_000,
	/** The documentation asks clients to ping every 10 seconds. */
	pingEveryMs: 10_000,
	/**
	 * A connection that brought nothing (no pong, no ping, no event) for this long is dead: two
	 * of our pings went unanswered. The server pings every 30 s on top of answering ours.
	 */
	silenceLimitMs: 25_000,
	/** Reconnect backoff: first wait, doubled per failed try, capped. */
	firstBackoffMs: 500,
	maxBackoffMs: 30_000,
	/** How far before the last event seen a catch-up reads again: clock skew and late listing. */
	catchUpOverlapMs: 2 * 60_000,
} as const;

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

/** What every part of one activation of the real-time trigger works with. */
export interface Activation {
	context: ITriggerFunctions;
	node: INode;
	client: ServiceClient;
	settings: StreamSettings;
	clock: SessionClock;
	/** A manual run keeps no state and emits one event. */
	manual: boolean;
	/** What is kept in static data; replaced once, by the stored state, at activation. */
	state: StreamState;
	/** The trading account whose events start the workflow; resolved at activation. */
	account?: AccountScope;
	/** The key's own futures account, when Position Changed is chosen; resolved at activation. */
	contractAccount?: string;
	/**
	 * The newest trade ID a catch-up of this activation read: the next reads the fills above it.
	 * Not kept across restarts: a process killed between an emit and its execution may have lost
	 * the executions of the last fills it read, so the first catch-up after a restart reads them
	 * again by time, from the cursor.
	 */
	tradeMark?: string;
	/** The n8n log, each line naming the trigger. */
	log: Record<'info' | 'warn' | 'error', (message: string) => void>;
}
