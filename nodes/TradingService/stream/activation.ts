import type { INode, ITriggerFunctions } from 'n8n-workflow';

import type { AccountScope } from '../helpers/accountScope';
import type { ServiceClient } from '../transport';
import type { StreamSettings } from './streamSettings';
import type { StreamState } from './streamState';

/**
 * The user data stream's timings (HashKey PRO and Global documentation of the same API family; the
 * UAE page does not cover it, docs/api.md "User data stream").
 */
export const USER_STREAM = {
	listenKeyLifetimeMs: 60 * 60_000,
	/** The documentation recommends a keep-alive about every 30 minutes, and a ping every 10 s. */
	keepAliveEveryMs: 30 * 60_000,
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

/** The session's timings: tests shorten them to watch a heartbeat fail or an outage be reported. */
export const STREAM_TIMINGS: Record<keyof typeof USER_STREAM | 'minuteMs', number> = {
	...USER_STREAM,
	/** What the Report Outage After option counts in. */
	minuteMs: 60_000,
};

export type SessionClock = { now: () => number; random: () => number };

/** What every part of one activation of the real-time trigger works with. */
export interface Activation {
	context: ITriggerFunctions;
	node: INode;
	client: ServiceClient;
	settings: StreamSettings;
	clock: SessionClock;
	/** A manual run keeps no state and emits one event. */
	manual: boolean;
	/** Replaced once, by the stored state, at activation. */
	state: StreamState;
	/** The trading account whose events start the workflow; resolved at activation. */
	account?: AccountScope;
	/** The key's own futures account, when a futures event is chosen; resolved at activation. */
	contractAccount?: string;
	/** The contracts exchange information lists, read once per activation by the futures catch-up. */
	futuresContracts?: string[];
	/**
	 * The newest trade ID a catch-up of this activation read: the next reads the fills above it. Not
	 * kept across restarts: a process killed between an emit and its execution may have lost the
	 * executions of the last fills it read, so the first catch-up after a restart reads by time.
	 */
	tradeMark?: string;
	log: Record<'info' | 'warn' | 'error', (message: string) => void>;
}
